#include "sha256.h"

#include <openssl/evp.h>

namespace verity {

namespace {

// Fetched once: EVP_sha256() makes every init look the implementation up again, which costs
// more than hashing a short line.
const EVP_MD *sha256Method()
{
    static EVP_MD *const method = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    if (!method)
        qFatal("SHA-256 through OpenSSL EVP is not available");
    return method;
}

void start(EVP_MD_CTX *context)
{
    // Only allocation failure can get here; a key must never be made from a broken digest.
    if (!context || EVP_DigestInit_ex2(context, sha256Method(), nullptr) != 1)
        qFatal("SHA-256 through OpenSSL EVP could not start");
}

void update(EVP_MD_CTX *context, const char *data, std::size_t size)
{
    if (EVP_DigestUpdate(context, data, size) != 1)
        qFatal("SHA-256 through OpenSSL EVP failed");
}

QByteArray finish(EVP_MD_CTX *context)
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_DigestFinal_ex(context, digest, &length) != 1)
        qFatal("SHA-256 through OpenSSL EVP failed");
    // Written as hex straight away: one allocation, not one for the bytes and one for the hex.
    static constexpr char digits[] = "0123456789abcdef";
    QByteArray hex(qsizetype(length) * 2, Qt::Uninitialized);
    for (unsigned int i = 0; i < length; ++i) {
        hex[qsizetype(i) * 2] = digits[digest[i] >> 4];
        hex[qsizetype(i) * 2 + 1] = digits[digest[i] & 0xf];
    }
    return hex;
}

} // namespace

Sha256Stream::Sha256Stream()
    : m_context(EVP_MD_CTX_new())
{
    start(m_context);
}

Sha256Stream::~Sha256Stream()
{
    EVP_MD_CTX_free(m_context);
}

void Sha256Stream::add(const QByteArray &data)
{
    update(m_context, data.constData(), std::size_t(data.size()));
}

QByteArray Sha256Stream::hexDigest()
{
    return finish(m_context);
}

QByteArray sha256Hex(const QByteArray &data)
{
    return sha256Hex(data.constData(), data.size());
}

QByteArray sha256Hex(const char *data, qsizetype size)
{
    // One context per thread, reset for each digest: an import hashes every line.
    struct Context
    {
        EVP_MD_CTX *context = EVP_MD_CTX_new();
        ~Context() { EVP_MD_CTX_free(context); }
    };
    thread_local Context reused;
    start(reused.context);
    update(reused.context, data, std::size_t(size));
    return finish(reused.context);
}

void appendNetstring(QByteArray &out, const QByteArray &bytes)
{
    out += QByteArray::number(bytes.size());
    out += ':';
    out += bytes;
    out += ',';
}

} // namespace verity
