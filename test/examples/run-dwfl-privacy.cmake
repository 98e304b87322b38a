# fl-dwfl --privacyTable against hand-computed values of eq. (11) and the orthogonal eps.
# delta = 1.25 e^-2 makes sqrt(2 ln(1.25/delta)) = 2, so with gamma = 0.1, g_max = 1:
#  * |h|^2 P = 4 for all, kappa = 0.5: c = 1, alpha = 1/4, beta = 3/4, sigma^2 = sigma_m^2 = 1:
#    eps_i = 2 * 0.1 * 1 * 1 * 2 / sqrt(3 (N-1) + 1) = 0.4 / sqrt(3N - 2):
#    N = 2: 0.2, N = 6: 0.1, N = 17: 0.4 / 7 = 0.0571428571429;
#    eps_orth = 2 * 0.1 * 1 * 2 * 2 / sqrt(4 * 3/4 + 1) = 0.4 for every N;
#    eps_i sqrt(N-1) = 0.2, sqrt(5)/10 = 0.22360679775, 0.4 * 4 / 7 = 0.228571428571.
#  * |h|^2 P = (1, 4), kappa = 1, N = 2: c = 1, beta = (0, 3/4): eps_0 = 0.4 / sqrt(3 + 1) = 0.2,
#    eps_1 = 0.4 / sqrt(0 + 1) = 0.4; eps_orth: 0.4 / 1 = 0.4 and 0.8 / 2 = 0.4.
set(common --privacyTable --gamma=0.1 --gmax=1 --delta=0.16916910404576588 --sigma2=1 --sigmaM2=1)
execute_process(COMMAND ${EXE} ${common} --nList=2,6,17 --kappa=0.5 --gainPower=4
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
# the comment lines say what each eps means; the numbers are compared without them
string(REGEX MATCHALL "\n# eps_[a-z]+: [^\n]*mechanism: [^\n]*adversary: [^\n]*composition: " said "${out}")
list(LENGTH said nsaid)
if(NOT nsaid EQUAL 2)
  message(FATAL_ERROR "expected 2 comment lines stating what eps_i and eps_orth mean")
endif()
string(REGEX REPLACE "# [^\n]*\n" "" out "${out}")
set(want "n,c,eps_i_max,eps_i_min,eps_orth_max,eps_orth_min,eps_i_max_x_sqrt_n_minus_1\n2,1,0.2,0.2,0.4,0.4,0.2\n6,1,0.1,0.1,0.4,0.4,0.22360679775\n17,1,0.0571428571429,0.0571428571429,0.4,0.4,0.228571428571\n")
if(NOT rc EQUAL 0 OR NOT out STREQUAL want)
  message(FATAL_ERROR "equal channels: exit ${rc}, expected\n${want}")
endif()
execute_process(COMMAND ${EXE} ${common} --nList=2 --kappa=1 --gainPower=1,4
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
string(REGEX REPLACE "# [^\n]*\n" "" out "${out}")
set(want "n,c,eps_i_max,eps_i_min,eps_orth_max,eps_orth_min,eps_i_max_x_sqrt_n_minus_1\n2,1,0.4,0.2,0.4,0.4,0.4\n")
if(NOT rc EQUAL 0 OR NOT out STREQUAL want)
  message(FATAL_ERROR "a list of gains: exit ${rc}, expected\n${want}")
endif()
# A bad value exits with 2 and names the flag.
execute_process(COMMAND ${EXE} ${common} --nList=2,3 --gainPower=1,x
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "--gainPower")
  message(FATAL_ERROR "--gainPower=1,x: exit ${rc}, stderr: ${err}")
endif()
message("eps table matches the hand values")
