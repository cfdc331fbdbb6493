set terminal png size 1000,520
set output 'phased_credits_1024.png'
set datafile separator ','
set xlabel 'alltoall (rank 0; 20 per phase: all, 1/4, 1/2, all, 1/2, 1/4, all of 1024 ranks)'
set ylabel 'credits granted by rank 0 (slots)'
set title 'Credit reallocation, dynamic flow control, 30 slots per process (credosim; thesis Fig. 7.4)'
set key top left
set xrange [0:140]
set for [p=1:6] arrow from p*20, graph 0 to p*20, graph 1 nohead dt 2 lc rgb 'gray'
plot 'phased_credits_1024.csv' using ($2==1 ? $1-0.2 : 1/0):4:5:6 with yerrorbars pt 7 ps 0.5 title 'senders 1..255', \
     '' using ($2==2 ? $1 : 1/0):4:5:6 with yerrorbars pt 7 ps 0.5 title 'senders 256..511', \
     '' using ($2==3 ? $1+0.2 : 1/0):4:5:6 with yerrorbars pt 7 ps 0.5 title 'senders 512..1023'
