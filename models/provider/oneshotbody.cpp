#include "oneshotbody.h"

#include <QNetworkRequest>

#include <cstring>

namespace verity {

OneShotBody::OneShotBody(QByteArray data, QObject *parent)
    : QIODevice(parent)
    , m_data(std::move(data))
{
    open(QIODevice::ReadOnly | QIODevice::Unbuffered);
}

bool OneShotBody::seek(qint64 position)
{
    if (m_handedOut > 0 && position != m_offset)
        return false;
    if (position < 0 || position > m_data.size() || !QIODevice::seek(position))
        return false;
    m_offset = position;
    return true;
}

qint64 OneShotBody::readData(char *data, qint64 maxSize)
{
    const qint64 count = qMin(maxSize, m_data.size() - m_offset);
    if (count <= 0)
        return 0;
    std::memcpy(data, m_data.constData() + m_offset, size_t(count));
    m_offset += count;
    m_handedOut = qMax(m_handedOut, m_offset);
    return count;
}

void makeOneShot(QNetworkRequest &request, qsizetype bodySize)
{
    request.setRawHeader("Connection", "close");
    request.setHeader(QNetworkRequest::ContentLengthHeader, bodySize);
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    request.setAttribute(QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);
}

} // namespace verity
