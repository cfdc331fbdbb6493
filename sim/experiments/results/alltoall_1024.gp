set terminal png size 900,500
set output 'alltoall_1024.png'
set datafile separator ','
set xlabel 'slots per process'; set ylabel '%'
set title 'Alltoall 2 KB, 1024 processes (credosim): overhead and delayed messages'
plot for [f in "static dynamic"] 'alltoall_1024.csv' using (strcol(2) eq f ? $3 : 1/0):5 with linespoints title f.' overhead',      for [f in "static dynamic"] 'alltoall_1024.csv' using (strcol(2) eq f ? $3 : 1/0):6 with points title f.' delayed msgs'
