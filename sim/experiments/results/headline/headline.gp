set terminal png size 900,520
set output 'headline.png'
set datafile separator ','
set logscale x 2
set xrange [3:160]
set yrange [0:20]
set xlabel 'slots per process (x 1/16 GiB cluster-wide at 1024 processes)'
set ylabel 'average overhead vs. no flow control (%), faster kernels as 0'
set title "Thesis headline at 1024 processes (credosim): 9 IMB-like kernels, 2 KB, 200 iterations,\nNIC depth 16, unexpected messages hold slots. Thesis Fig. 7.12: 3 % at 64 slots static, 16 dynamic" noenhanced
set key top right
plot 'imb_avg.csv' using (strcol(1) eq 'static' ? $2 : 1/0):6 with linespoints pt 7 lc rgb '#c03020' title 'static (credosim)', \
     'imb_avg.csv' using (strcol(1) eq 'dynamic' ? $2 : 1/0):6 with linespoints pt 5 lc rgb '#2050c0' title 'dynamic (credosim)', \
     '-' using 1:2 with points pt 6 ps 3 lw 2 lc rgb '#c03020' title 'thesis: static within 3 % (64 slots)', \
     '-' using 1:2 with points pt 4 ps 3 lw 2 lc rgb '#2050c0' title 'thesis: dynamic within 3 % (16 slots)', \
     3 with lines dt 2 lc rgb 'black' title '3 %'
64,3
e
16,3
e
