#include "claimcommand.h"

#include "resolution/escalationclaims.h"
#include "resolution/operatoridentity.h"
#include "store/storefactory.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

namespace verity {

namespace {

const QString usageText = QStringLiteral(
        "Usage: verity claim [--db PATH|URI] (--next | ESCALATION) [--operator NAME] [--release | "
        "--release-any] [--minutes N] [--json]\n"
        "\n"
        "Claim an escalation before acting on it, so that nobody else looks it up, performs it again or\n"
        "attests it meanwhile. A claim lasts 15 minutes unless --minutes says otherwise; claiming it again\n"
        "renews it. In a team's database the operator is the database user you connect as.\n"
        "\n"
        "Options:\n"
        "  --next          claim the oldest open escalation nobody holds\n"
        "  --release       give your claim on ESCALATION back\n"
        "  --release-any   take anyone's claim off ESCALATION (an admin's release)\n"
        "  --minutes N     how long the claim lasts, 1 to 240 (default 15)\n"
        "  --operator NAME your name, for the audit log (on a desk's file)\n"
        "  --json          print the result as JSON\n"
        "\n"
        "Exit status: 0 claimed (or released), 1 someone else holds it, or no escalation is left to claim,\n"
        "2 bad arguments or could not run.\n");

QString isoTime(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODate);
}

} // namespace

int runClaimCommand(const QStringList &arguments)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    QCommandLineParser parser;
    const QCommandLineOption help(QStringList{QStringLiteral("h"), QStringLiteral("help")});
    const QCommandLineOption db(QStringLiteral("db"), QString(), QStringLiteral("PATH"),
                                defaultStoreLocation());
    const QCommandLineOption next(QStringLiteral("next"));
    const QCommandLineOption release(QStringLiteral("release"));
    const QCommandLineOption releaseAny(QStringLiteral("release-any"));
    const QCommandLineOption minutes(QStringLiteral("minutes"), QString(), QStringLiteral("N"),
                                     QStringLiteral("15"));
    const QCommandLineOption operatorName(QStringLiteral("operator"), QString(), QStringLiteral("NAME"));
    const QCommandLineOption json(QStringLiteral("json"));
    parser.addOptions({help, db, next, release, releaseAny, minutes, operatorName, json});
    if (!parser.parse(arguments)) {
        err << "verity claim: " << parser.errorText() << "\n\n" << usageText;
        return 2;
    }
    if (parser.isSet(help)) {
        out << usageText;
        return 0;
    }
    const auto fail = [&](const QString &message) {
        err << "verity claim: " << message << "\n";
        return 2;
    };
    const QStringList positional = parser.positionalArguments();
    if (parser.isSet(next) == !positional.isEmpty() || positional.size() > 1)
        return fail(QStringLiteral("name one ESCALATION number, or --next"));
    if (parser.isSet(next) && (parser.isSet(release) || parser.isSet(releaseAny)))
        return fail(QStringLiteral("--release and --release-any need an ESCALATION number, not --next"));
    if (parser.isSet(release) && parser.isSet(releaseAny))
        return fail(QStringLiteral("--release or --release-any, not both"));
    qint64 id = 0;
    if (!positional.isEmpty()) {
        bool ok = false;
        id = positional.first().toLongLong(&ok);
        if (!ok || id <= 0)
            return fail(QStringLiteral("ESCALATION: expected an escalation number, got \"%1\"")
                                .arg(positional.first()));
    }
    bool ok = false;
    const int leaseMinutes = parser.value(minutes).toInt(&ok);
    if (!ok || leaseMinutes < 1 || leaseMinutes > 240)
        return fail(QStringLiteral("--minutes: expected a whole number from 1 to 240, got \"%1\"")
                            .arg(parser.value(minutes)));

    const QString location = parser.value(db);
    if (isFileLocation(location) && !QFileInfo::exists(location))
        return fail(QStringLiteral("%1: no such database file").arg(location));
    Expected<std::unique_ptr<Store>> store = openStore(location);
    if (!store)
        return fail(store.message());
    Expected<QString> who = operatorNameFor(**store, parser.value(operatorName));
    if (!who)
        return fail(who.message());
    if (Expected<void> allowed = parser.isSet(releaseAny)
                ? requireRole(**store, TeamRole::Admin, QStringLiteral("releasing another's claim"))
                : requireRole(**store, TeamRole::Support, QStringLiteral("claiming escalations"));
        !allowed)
        return fail(allowed.message());
    EscalationClaims claims(**store, *who);
    claims.setLease(qint64(leaseMinutes) * 60 * 1000);

    if (parser.isSet(release) || parser.isSet(releaseAny)) {
        Expected<bool> released = parser.isSet(release) ? claims.release(id) : claims.releaseAnyone(id);
        if (!released)
            return fail(released.message());
        if (parser.isSet(json))
            out << QJsonDocument(QJsonObject{{QStringLiteral("escalation"), id},
                                             {QStringLiteral("released"), *released}})
                            .toJson();
        else if (*released)
            out << "escalation " << id << ": claim released\n";
        else if (const Expected<std::optional<EscalationDetail>> now = (*store)->escalation(id);
                 parser.isSet(release) && now && *now
                 && claimHeld((*now)->claimedBy, (*now)->claimedUntil, QDateTime::currentMSecsSinceEpoch()))
            err << "escalation " << id << ": held by " << claimWords((*now)->claimedBy, (*now)->claimedUntil)
                << ", not by you; only they, or an admin with --release-any, can give it back\n";
        else
            err << "escalation " << id << ": nobody holds a claim on it\n";
        return *released ? 0 : 1;
    }

    std::optional<EscalationClaim> claim;
    if (parser.isSet(next)) {
        Expected<std::optional<EscalationClaim>> claimed = claims.claimNext();
        if (!claimed)
            return fail(claimed.message());
        claim = *claimed;
    } else {
        Expected<EscalationClaim> claimed = claims.claim(id);
        if (!claimed)
            return fail(claimed.message());
        claim = *claimed;
    }
    if (parser.isSet(json)) {
        QJsonObject result{{QStringLiteral("operator"), *who}};
        if (claim) {
            result.insert(QStringLiteral("escalation"), claim->escalationId);
            result.insert(QStringLiteral("claimed"), claim->taken);
            result.insert(QStringLiteral("holder"),
                          claim->holder.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(claim->holder));
            result.insert(QStringLiteral("until"),
                          claim->holder.isEmpty() ? QJsonValue(QJsonValue::Null)
                                                  : QJsonValue(isoTime(claim->until)));
        } else {
            result.insert(QStringLiteral("escalation"), QJsonValue(QJsonValue::Null));
            result.insert(QStringLiteral("claimed"), false);
        }
        out << QJsonDocument(result).toJson();
    } else if (!claim) {
        err << "no open escalation is left to claim: every one is settled or held by someone\n";
    } else if (claim->taken) {
        out << "escalation " << claim->escalationId << ": claimed by "
            << claimWords(claim->holder, claim->until) << "\n";
    } else if (claim->holder.isEmpty()) {
        err << "escalation " << claim->escalationId << ": settled already; there is nothing left to claim\n";
    } else {
        err << "escalation " << claim->escalationId << ": held by " << claimWords(claim->holder, claim->until)
            << "; ask them, or an admin to release it\n";
    }
    return claim && claim->taken ? 0 : 1;
}

} // namespace verity
