#pragma once
// The one crossing between nlohmann/json's std::string (UTF-8) and QString.

#include <QString>

#include <string>

namespace verity {

inline QString fromUtf8String(const std::string &text)
{
    return QString::fromUtf8(text.data(), qsizetype(text.size()));
}

} // namespace verity
