set terminal png size 900,500
set output 'fig5_k3.png'
set datafile separator ','
set logscale x 2
set xlabel 'W (outstanding one-packet gets per receiver)'
set ylabel 'normalized throughput'
set yrange [0:0.8]
set key bottom right
set title "seed 002 Fig. 5 at 342 nodes (credosim net, PAR, 1 % slow sinks, 3 permutations); dashed: best alternative; paper: best W near 30 at 8x" noenhanced
plot for [s in "2 4 8"] 'fig5_k3_summary.csv' using ($1 == s && $2 > 0 ? $2 : 1/0):4 with linespoints title s.'x RDRP',      for [s in "2 4 8"] 'fig5_k3_summary.csv' using ($1 == s && $2 == 0 ? 1 : 1/0):4:(128):(0) with vectors nohead dt 2 title s.'x best alternative'
