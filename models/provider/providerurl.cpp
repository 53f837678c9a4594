#include "providerurl.h"

#include <QHostAddress>

namespace verity {

namespace {

Error refusal(const QString &shown, const QString &why)
{
    return makeError(
            QStringLiteral("\"%1\" %2; expected https://…, or http:// to 127.0.0.1, ::1 or localhost")
                    .arg(shown, why));
}

int defaultPort(const QString &scheme)
{
    if (scheme == u"https")
        return 443;
    if (scheme == u"http")
        return 80;
    return -1;
}

} // namespace

bool isLoopbackHost(const QString &host)
{
    if (host.compare(QStringLiteral("localhost"), Qt::CaseInsensitive) == 0)
        return true;
    const QHostAddress address(host);
    return !address.isNull() && address.isLoopback();
}

Expected<QUrl> checkProviderUrl(const QUrl &url)
{
    // Shown without a password: a refusal is printed and may be logged.
    const QString shown = url.toString(QUrl::RemovePassword);
    if (url.isEmpty())
        return makeError(QStringLiteral(
                "no URL given; expected https://…, or http:// to 127.0.0.1, ::1 or localhost"));
    if (!url.isValid())
        return refusal(shown, QStringLiteral("is not a URL (%1)").arg(url.errorString().section(u';', 0, 0)));
    if (url.scheme().isEmpty())
        return refusal(shown, QStringLiteral("has no scheme"));
    const QString scheme = url.scheme().toLower();
    if (scheme != u"https" && scheme != u"http")
        return refusal(shown,
                       QStringLiteral("uses %1:, which Verity does not send the API key over").arg(scheme));
    if (url.host().isEmpty())
        return refusal(shown, QStringLiteral("names no host"));
    if (!url.userInfo().isEmpty())
        return refusal(shown,
                       QStringLiteral("carries a user name or password; the API key is given separately"));
    if (url.hasQuery() || url.hasFragment())
        return refusal(shown, QStringLiteral("has a query or fragment, which a base URL does not take"));
    if (scheme == u"http" && !isLoopbackHost(url.host()))
        return refusal(shown,
                       QStringLiteral("is plain http to another machine, where the API key would cross the "
                                      "network unencrypted"));
    return url;
}

Expected<QUrl> parseProviderUrl(const QString &text)
{
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty())
        return checkProviderUrl(QUrl());
    // Strict, and never QUrl::fromUserInput: that turns "/tmp/x" into file:///tmp/x.
    const QUrl url(trimmed, QUrl::StrictMode);
    if (!url.isValid())
        return refusal(trimmed,
                       QStringLiteral("is not a URL (%1)").arg(url.errorString().section(u';', 0, 0)));
    return checkProviderUrl(url);
}

QString originOf(const QUrl &url)
{
    return url.adjusted(QUrl::RemoveUserInfo | QUrl::RemovePath | QUrl::RemoveQuery | QUrl::RemoveFragment)
            .toString(QUrl::FullyEncoded);
}

bool sameOrigin(const QUrl &a, const QUrl &b)
{
    const QString scheme = a.scheme().toLower();
    return !scheme.isEmpty() && scheme == b.scheme().toLower()
            && a.host().compare(b.host(), Qt::CaseInsensitive) == 0 && !a.host().isEmpty()
            && a.port(defaultPort(scheme)) == b.port(defaultPort(scheme));
}

} // namespace verity
