set terminal png size 1000,450
set output 'booksim_k2.png'
set datafile separator ','
set multiplot layout 1,2 title "dragonflynew k=2 (72 nodes), UGAL, 10/100-cycle links: Booksim2 vs credosim net"
set xlabel 'offered load (flits/cycle/node)'
set ylabel 'accepted (flits/cycle/node)'
set key top left
plot for [t in "uniform randperm"] 'booksim.csv' using (strcol(1) eq 'booksim' && $2 == 2 && strcol(4) eq t ? $5 : 1/0):7 with linespoints title 'Booksim2 '.t,      for [t in "uniform randperm"] 'booksim.csv' using (strcol(1) eq 'credosim' && $2 == 2 && strcol(4) eq t ? $5 : 1/0):7 with linespoints dt 2 title 'credosim '.t,      for [t in "uniform randperm"] 'booksim.csv' using (strcol(1) eq 'credosim-bsugal' && $2 == 2 && strcol(4) eq t ? $5 : 1/0):7 with linespoints dt 3 title 'credosim --ugal-booksim '.t
set ylabel 'average packet latency (cycles)'
set logscale y
plot for [t in "uniform randperm"] 'booksim.csv' using (strcol(1) eq 'booksim' && $2 == 2 && strcol(4) eq t ? $5 : 1/0):8 with linespoints title 'Booksim2 '.t,      for [t in "uniform randperm"] 'booksim.csv' using (strcol(1) eq 'credosim' && $2 == 2 && strcol(4) eq t ? $5 : 1/0):8 with linespoints dt 2 title 'credosim '.t,      for [t in "uniform randperm"] 'booksim.csv' using (strcol(1) eq 'credosim-bsugal' && $2 == 2 && strcol(4) eq t ? $5 : 1/0):8 with linespoints dt 3 title 'credosim --ugal-booksim '.t
unset multiplot
