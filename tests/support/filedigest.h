#pragma once
// A file's SHA-256, for tests that prove a command left a file byte for byte as it was.

#include <QByteArray>
#include <QCryptographicHash>
#include <QFile>
#include <QString>

namespace verity::test {

// Hex digest of the file's bytes; empty when it cannot be read.
inline QByteArray fileSha256(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(&file);
    return hash.result().toHex();
}

} // namespace verity::test
