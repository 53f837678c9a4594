#pragma once
// The process's peak resident set size, as the kernel counts it.

#include <sys/resource.h>

namespace verity::bench {

inline long peakResidentKb()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

} // namespace verity::bench
