set terminal png size 900,500
set output 'imb_kernels.png'
set datafile separator ','
set logscale x 2
set xlabel 'slots per process'; set ylabel 'warm overhead vs. no flow control (%)'
set title 'Multi-PingPong and Alltoall in the IMB-like suite, 2 KB, 1024 processes (credosim)'
plot for [k in "pingpong alltoall"] for [f in "static dynamic"] 'imb.csv' using (strcol(1) eq k && strcol(2) eq f ? $3 : 1/0):7 with linespoints title k.' '.f
