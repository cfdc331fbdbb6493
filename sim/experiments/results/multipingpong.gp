set terminal png size 900,500
set output 'multipingpong.png'
set datafile separator ','
set xlabel 'slots per process'; set ylabel 'overhead vs. no flow control (%)'
set title 'Multi-PingPong 2 KB, 16+16 processes (credosim)'
set key top right
plot for [h in "1 14"] for [f in "static dynamic"] 'multipingpong.csv' using (strcol(1) eq h && strcol(2) eq f ? $3 : 1/0):5 with linespoints title f.' '.h.' hop(s)'
