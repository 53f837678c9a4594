#pragma once
// A request body sent with Content-Encoding: gzip, inflated with a ceiling: a few kilobytes of
// gzip can claim gigabytes, and the receiver must refuse them before holding them.

#include "domain/expected.h"

#include <QByteArray>

namespace verity {

struct Inflated
{
    QByteArray bytes;
    bool tooLarge = false; // stopped at the ceiling: bytes is incomplete
};

// An error when the body is not gzip (or is cut short).
Expected<Inflated> gunzip(const QByteArray &body, qsizetype ceiling);

} // namespace verity
