#pragma once
// The --listen option of the commands that serve on a port (collect, guard).

#include <QHostAddress>
#include <QString>

#include <optional>
#include <utility>

namespace verity {

// "127.0.0.1:4318", "[::1]:4318", "localhost:4318", "0.0.0.0:4318", or a port alone (on loopback).
inline std::optional<std::pair<QHostAddress, quint16>> parseListen(const QString &text)
{
    QString host = QStringLiteral("127.0.0.1");
    QString port = text;
    const qsizetype colon = text.lastIndexOf(u':');
    if (colon >= 0) {
        host = text.left(colon);
        port = text.mid(colon + 1);
        if (host.startsWith(u'[') && host.endsWith(u']'))
            host = host.mid(1, host.size() - 2);
    }
    bool valid = false;
    const uint number = port.toUInt(&valid);
    QHostAddress address;
    if (host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0)
        address = QHostAddress::LocalHost;
    else if (!address.setAddress(host))
        return std::nullopt;
    if (!valid || number > 65535)
        return std::nullopt;
    return std::make_pair(address, quint16(number));
}

} // namespace verity
