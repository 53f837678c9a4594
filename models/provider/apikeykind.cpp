#include "apikeykind.h"

namespace verity {

ApiKeyKind apiKeyKind(const QString &apiKey)
{
    ApiKeyKind kind;
    if (apiKey.isEmpty())
        return kind;
    kind.restricted = apiKey.startsWith(QStringLiteral("rk_"));
    const QString rest = apiKey.mid(3);
    if (!kind.restricted && !apiKey.startsWith(QStringLiteral("sk_")))
        kind.mode = ApiKeyKind::Mode::Unknown;
    else if (rest.startsWith(QStringLiteral("live_")))
        kind.mode = ApiKeyKind::Mode::Live;
    else if (rest.startsWith(QStringLiteral("test_")))
        kind.mode = ApiKeyKind::Mode::Test;
    else
        kind.mode = ApiKeyKind::Mode::Unknown;
    return kind;
}

QString ApiKeyKind::describe(const QString &apiKey) const
{
    if (mode == Mode::None)
        return QStringLiteral("no API key");
    // The prefix says the kind; the last four tell two keys apart; nothing else is shown.
    const qsizetype prefix = mode == Mode::Unknown ? 0 : apiKey.indexOf(u'_', 3) + 1;
    const QString shown = apiKey.size() > prefix + 8
            ? apiKey.left(prefix) + QStringLiteral("…") + apiKey.right(4)
            : apiKey.left(prefix) + QStringLiteral("…");
    const QString what = restricted ? QStringLiteral("restricted key") : QStringLiteral("secret key");
    switch (mode) {
    case Mode::Test:
        return QStringLiteral("a test %1 (%2)").arg(what, shown);
    case Mode::Live:
        return QStringLiteral("a live %1 (%2)").arg(what, shown);
    default:
        return QStringLiteral("a key of no kind Stripe gives (%1)").arg(shown);
    }
}

QString ApiKeyKind::whyNoWrite() const
{
    if (!restricted)
        return QString();
    return QStringLiteral(
            "the API key is a restricted key (rk_…), which Verity uses to read only: lookups "
            "and reconciliation. A refund is sent only with a secret key (sk_…): enter one under "
            "Provider > Payment provider settings to send it");
}

} // namespace verity
