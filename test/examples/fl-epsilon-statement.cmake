# fl_epsilon_statement(LINE COUNTER): LINE is a CSV comment line that says what an epsilon means;
# it must name the mechanism, sensitivity, unit, neighbouring relation, adversary and
# composition, what it assumes of the noise and where it is proven (fl::PrivacyStatement::
# Describe). Increments the variable COUNTER in the caller.
function(fl_epsilon_statement line counter)
  foreach(part "mechanism: " "sensitivity: " "unit: " "neighbouring: " "adversary: " "composition: "
          "noise: " "proof: ")
    string(FIND "${line}" "${part}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "epsilon comment line without '${part}': ${line}")
    endif()
  endforeach()
  math(EXPR n "${${counter}} + 1")
  set(${counter} ${n} PARENT_SCOPE)
endfunction()
