set terminal png size 900,500
set output 'imb.png'
set datafile separator ','
set logscale x 2
set xlabel 'cluster-wide buffers at 1024 processes (GiB; 1 GiB = 16 slots per process)'
set ylabel 'average overhead vs. no flow control (%)'
set title "IMB-like suite, 2 KB, 1024 processes, warm over 200 iterations (credosim)\nthesis Fig. 7.12: 3 % at 4 GB static, 1 GB dynamic" noenhanced
plot for [f in "static dynamic"] 'imb_avg.csv' using (strcol(1) eq f ? $3 : 1/0):4 with linespoints title f.' (warm)', \
     for [f in "static dynamic"] 'imb_avg.csv' using (strcol(1) eq f ? $3 : 1/0):6 with linespoints dt 4 title f.' (warm, faster kernels as 0)', \
     for [f in "static dynamic"] 'imb_avg.csv' using (strcol(1) eq f ? $3 : 1/0):5 with linespoints dt 3 title f.' (first iteration)', \
     3 title '3 %' with lines dt 2
