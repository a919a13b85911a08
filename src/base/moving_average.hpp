// One step of the moving averages that measured costs keep (device/shm/both_ways_costs.hpp,
// progress/poll_spacing.hpp): the average moves 1/weight of the way to the sample, the sample
// counted as at most most_above times the average, so that one odd sample (an interruption, a
// page touched for the first time) moves it by little while a lasting change shows within a
// few samples.
#pragma once

#include <algorithm>

namespace railmpi::base {

inline double moving_average_step(double average, double sample, double weight, double most_above) {
  return average + (std::min(sample, most_above * average) - average) / weight;
}

}  // namespace railmpi::base
