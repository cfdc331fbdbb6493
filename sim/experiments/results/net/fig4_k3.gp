set terminal png size 1200,420
set output 'fig4_k3.png'
set datafile separator ','
set multiplot layout 1,3 title "seed 002 Fig. 4 at 342 nodes (credosim net, PAR, pairwise, 3 permutations, min/mean/max)"
set xlabel 'slow sinks'
set ylabel 'normalized throughput'
set yrange [0:0.8]
do for [s in "2 4 8"] {
  set title s.'x slower sinks'
  plot for [c in "none fecn fecn-aggressive"] 'fig4_k3_summary.csv' using (strcol(1) eq c && $2 == s ? $3 : 1/0):5:6:7 with yerrorlines title c
}
unset multiplot
