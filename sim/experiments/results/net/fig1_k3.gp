set terminal png size 900,500
set output 'fig1_k3.png'
set datafile separator ','
set xlabel 'slow sinks (of 342 nodes)'
set ylabel 'normalized throughput'
set yrange [0:1]
set key top right
set title "seed 002 Fig. 1 at 342 nodes: credosim net, PAR, pairwise, 10 permutations (mean, min-max)" noenhanced
plot 'fig1_k3_summary.csv' using ($1 == 2 ? $2 : 1/0):4:5:6 with yerrorlines title '2x slower',      'fig1_k3_summary.csv' using ($1 == 8 ? $2 : 1/0):4:5:6 with yerrorlines title '8x slower',      0.59 title 'paper, no slow node (5,256 nodes)' with lines dt 2
