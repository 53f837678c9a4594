#pragma once

#include <QByteArray>

#include <memory>

struct evp_md_ctx_st;

namespace verity {

// Lowercase hex SHA-256 of `data`, through OpenSSL's EVP interface.
QByteArray sha256Hex(const QByteArray &data);
QByteArray sha256Hex(const char *data, qsizetype size);

// Appends `bytes` as a netstring: its byte length in decimal, ':', the bytes, ','. Hashed
// encodings (intent keys, audit entries, evidence, settlements) are built of these, so no two
// different field lists encode alike.
void appendNetstring(QByteArray &out, const QByteArray &bytes);

// The same, fed piece by piece (a whole file, read line by line).
class Sha256Stream
{
public:
    Sha256Stream();
    ~Sha256Stream();
    Sha256Stream(const Sha256Stream &) = delete;
    Sha256Stream &operator=(const Sha256Stream &) = delete;

    void add(const QByteArray &data);
    QByteArray hexDigest(); // ends the stream

private:
    evp_md_ctx_st *m_context;
};

} // namespace verity
