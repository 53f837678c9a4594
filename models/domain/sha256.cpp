#include "sha256.h"

#include <openssl/evp.h>

namespace verity {

Sha256Stream::Sha256Stream() : m_context(EVP_MD_CTX_new())
{
    // Only allocation failure can get here; a key must never be made from a broken digest.
    if (!m_context || EVP_DigestInit_ex(m_context, EVP_sha256(), nullptr) != 1)
        qFatal("SHA-256 through OpenSSL EVP could not start");
}

Sha256Stream::~Sha256Stream()
{
    EVP_MD_CTX_free(m_context);
}

void Sha256Stream::add(const QByteArray &data)
{
    if (EVP_DigestUpdate(m_context, data.constData(), std::size_t(data.size())) != 1)
        qFatal("SHA-256 through OpenSSL EVP failed");
}

QByteArray Sha256Stream::hexDigest()
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_DigestFinal_ex(m_context, digest, &length) != 1)
        qFatal("SHA-256 through OpenSSL EVP failed");
    return QByteArray(reinterpret_cast<const char *>(digest), int(length)).toHex();
}

QByteArray sha256Hex(const QByteArray &data)
{
    Sha256Stream stream;
    stream.add(data);
    return stream.hexDigest();
}

} // namespace verity
