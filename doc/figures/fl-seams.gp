# The fl module's layers and seams (doc/fl-design.rst, Design). Run: gnuplot doc/figures/fl-seams.gp
set terminal pngcairo size 1100,640 font "DejaVu Sans,11"
set output "doc/figures/fl-seams.png"
unset border; unset xtics; unset ytics; unset key
set xrange [0:110]; set yrange [0:64]
set style fill solid 0.15 border lc rgb "#333333"
box(n,x,y,w,h,c) = 0
# pure layers (left), ns-3 layers (right)
set object 1 rect from 1,1 to 52,63 fc rgb "#e8f0fb" fs solid 0.5 noborder behind
set object 2 rect from 56,1 to 109,63 fc rgb "#fbf0e6" fs solid 0.5 noborder behind
set label 1 "pure C++17 + Eigen (no ns-3)" at 3,61 font ",12"
set label 2 "ns-3 objects" at 58,61 font ",12"
set object 10 rect from 4,47 to 49,57 fc rgb "#b7d0ee"
set label 10 "model/learning\nLearningTask: data, model, local trainer,\nmetrics, text-parse" at 6,54
set object 11 rect from 4,33 to 49,44 fc rgb "#b7d0ee"
set label 11 "model/algorithms\nSampleClients, AggregateRound (round seam),\nRunFedAvgReference, graphs, network metrics,\nDWFL / GFL / GHP update rules" at 6,42
set object 12 rect from 4,19 to 49,30 fc rgb "#b7d0ee"
set label 12 "model/privacy (privacy seam)\nPerturbation: none, Gaussian, Laplace, ...\nPrivacyAccountant: basic, advanced, RDP, zCDP" at 6,27
set object 13 rect from 4,5 to 49,16 fc rgb "#b7d0ee"
set label 13 "model/net\nwire format v2 (node ids, receiver, raw control),\nreassembly, chunking, feedback, partial decode" at 6,13
set object 20 rect from 59,47 to 106,57 fc rgb "#f5cfa6"
set label 20 "model/apps: FlServerApplication, FlClientApplication, ...\n(when and to whom)  +  FlRoundStep (round seam)\nFlApplicationBase: ModelReport trace (observer seam)" at 60.5,54
set object 21 rect from 59,33 to 106,44 fc rgb "#f5cfa6"
set label 21 "FlTransport (transport seam)\nTCP: FlMessageSocket   UDP: FlDatagramEndpoint\nencode once / decode, one receive callback" at 60.5,41
set object 22 rect from 59,19 to 106,30 fc rgb "#f5cfa6"
set label 22 "ns-3 sockets, Internet stack, Wi-Fi / LTE / CSMA / P2P\n(scenes: FlScene)      OtaChannel / OtaPhy (analog)" at 60.5,26
set object 23 rect from 59,5 to 106,16 fc rgb "#f5cfa6"
set label 23 "helper/: FlFedAvgHelper (stack in one call),\nFlLearningTracker (ModelReport -> tidy CSV),\nLearningMonitor (FedAvg CSV), scene helpers" at 60.5,13
set arrow 1 from 59,52 to 49,52 lw 2 lc rgb "#333333"
set label 30 "TrainClient" at 50.5,53.5 font ",9"
set arrow 2 from 59,49 to 49,38 lw 2 lc rgb "#333333"
set label 31 "AggregateRound" at 50,46 font ",9"
set arrow 3 from 82,47 to 82,44 lw 2 lc rgb "#333333"
set arrow 4 from 82,33 to 82,30 lw 2 lc rgb "#333333"
set arrow 5 from 59,36 to 49,12 lw 2 lc rgb "#333333"
set label 32 "Encode / Decode" at 50,22 font ",9"
set arrow 6 from 59,54.5 to 49,24 lw 1 dt 2 lc rgb "#333333"
set arrow 7 from 100,47 to 100,16 lw 1 dt 2 lc rgb "#333333"
set label 33 "ModelReport" at 101,31 rotate by 90 font ",9"
plot -1 notitle
