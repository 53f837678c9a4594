#include "claimcommand.h"

#include "resolution/escalationclaims.h"
#include "resolution/escalationtext.h"
#include "resolution/operatoridentity.h"
#include "store/storefactory.h"
#include "subcommandline.h"

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
        "  --json          print the result as JSON; one that cannot run prints {\"ok\": false, \"error\": "
        "…}\n"
        "\n"
        "Exit status: 0 claimed (or released), 1 someone else holds it, or no escalation is left to claim,\n"
        "2 bad arguments or could not run.\n");

struct ClaimRequest
{
    QString db;
    qint64 escalation = 0; // 0 with --next
    bool next = false;
    bool release = false;
    bool releaseAny = false;
    int leaseMinutes = 15;
    QString operatorName;
    bool json = false;
};

// Nothing when the claim goes on; else the exit status, said already.
std::optional<int> readRequest(SubcommandLine &line, const QStringList &arguments, ClaimRequest &request)
{
    QCommandLineParser &parser = line.parser();
    const QCommandLineOption db(QStringLiteral("db"), QString(), QStringLiteral("PATH"),
                                defaultStoreLocation());
    const QCommandLineOption next(QStringLiteral("next"));
    const QCommandLineOption release(QStringLiteral("release"));
    const QCommandLineOption releaseAny(QStringLiteral("release-any"));
    const QCommandLineOption minutes(QStringLiteral("minutes"), QString(), QStringLiteral("N"),
                                     QStringLiteral("15"));
    const QCommandLineOption operatorName(QStringLiteral("operator"), QString(), QStringLiteral("NAME"));
    const QCommandLineOption json(QStringLiteral("json"));
    parser.addOptions({db, next, release, releaseAny, minutes, operatorName, json});
    if (std::optional<int> done = line.parseWithOwnHelp(arguments, usageText))
        return done;
    request.next = parser.isSet(next);
    request.release = parser.isSet(release);
    request.releaseAny = parser.isSet(releaseAny);
    const QStringList positional = parser.positionalArguments();
    if (request.next == !positional.isEmpty() || positional.size() > 1)
        return line.fail(QStringLiteral("name one ESCALATION number, or --next"));
    if (request.next && (request.release || request.releaseAny))
        return line.fail(QStringLiteral("--release and --release-any need an ESCALATION number, not --next"));
    if (request.release && request.releaseAny)
        return line.fail(QStringLiteral("--release or --release-any, not both"));
    if (!positional.isEmpty()) {
        bool ok = false;
        request.escalation = positional.first().toLongLong(&ok);
        if (!ok || request.escalation <= 0)
            return line.fail(QStringLiteral("ESCALATION: expected an escalation number, got \"%1\"")
                                     .arg(positional.first()));
    }
    bool ok = false;
    request.leaseMinutes = parser.value(minutes).toInt(&ok);
    if (!ok || request.leaseMinutes < 1 || request.leaseMinutes > 240)
        return line.fail(QStringLiteral("--minutes: expected a whole number from 1 to 240, got \"%1\"")
                                 .arg(parser.value(minutes)));
    request.db = parser.value(db);
    request.operatorName = parser.value(operatorName);
    request.json = parser.isSet(json);
    return std::nullopt;
}

// --release, --release-any: 0 released, 1 there was nothing of one's own to release.
int releaseClaim(SubcommandLine &line, Store &store, EscalationClaims &claims, const ClaimRequest &request)
{
    const qint64 id = request.escalation;
    Expected<bool> released = request.release ? claims.release(id) : claims.releaseAnyone(id);
    if (!released)
        return line.fail(released.message());
    QTextStream err(stderr);
    if (request.json)
        line.out() << QJsonDocument(QJsonObject{{QStringLiteral("escalation"), id},
                                                {QStringLiteral("released"), *released}})
                              .toJson();
    else if (*released)
        line.out() << "escalation " << id << ": claim released\n";
    else if (const Expected<std::optional<EscalationDetail>> now = store.escalation(id); request.release
             && now && *now
             && claimHeld((*now)->claimedBy, (*now)->claimedUntil, QDateTime::currentMSecsSinceEpoch()))
        err << "escalation " << id << ": held by " << claimWords((*now)->claimedBy, (*now)->claimedUntil)
            << ", not by you; only they, or an admin with --release-any, can give it back\n";
    else
        err << "escalation " << id << ": nobody holds a claim on it\n";
    return *released ? 0 : 1;
}

QJsonObject jsonClaim(const QString &who, const std::optional<EscalationClaim> &claim)
{
    QJsonObject result{{QStringLiteral("operator"), who}};
    if (!claim) {
        result.insert(QStringLiteral("escalation"), QJsonValue(QJsonValue::Null));
        result.insert(QStringLiteral("claimed"), false);
        return result;
    }
    result.insert(QStringLiteral("escalation"), claim->escalationId);
    result.insert(QStringLiteral("claimed"), claim->taken);
    const bool held = !claim->holder.isEmpty();
    result.insert(QStringLiteral("holder"), held ? QJsonValue(claim->holder) : QJsonValue(QJsonValue::Null));
    result.insert(QStringLiteral("until"),
                  held ? QJsonValue(isoTime(claim->until)) : QJsonValue(QJsonValue::Null));
    return result;
}

// What became of the claim, in words: on stdout when it was taken, else on stderr.
void sayClaim(QTextStream &out, const std::optional<EscalationClaim> &claim)
{
    QTextStream err(stderr);
    if (!claim)
        err << "no open escalation is left to claim: every one is settled or held by someone\n";
    else if (claim->taken)
        out << "escalation " << claim->escalationId << ": claimed by "
            << claimWords(claim->holder, claim->until) << "\n";
    else if (claim->holder.isEmpty())
        err << "escalation " << claim->escalationId << ": settled already; there is nothing left to claim\n";
    else
        err << "escalation " << claim->escalationId << ": held by " << claimWords(claim->holder, claim->until)
            << "; ask them, or an admin to release it\n";
}

} // namespace

int runClaimCommand(const QStringList &arguments)
{
    SubcommandLine line(QStringLiteral("claim"), QString());
    ClaimRequest request;
    if (std::optional<int> done = readRequest(line, arguments, request))
        return *done;
    // With --json, a claim that cannot be made is JSON on stdout too ({"ok": false, "error": …}), as
    // import's is; the message also goes to stderr.
    const auto cannotRun = [&line, &request](const QString &message) {
        if (request.json) {
            line.out() << QJsonDocument(QJsonObject{{QStringLiteral("ok"), false},
                                                    {QStringLiteral("error"), message}})
                                  .toJson();
            line.out().flush();
        }
        return line.fail(message);
    };
    Expected<std::unique_ptr<Store>> store = openExistingStore(request.db);
    if (!store)
        return cannotRun(store.message());
    Expected<QString> who = request.releaseAny
            ? actingOperator(**store, request.operatorName, TeamRole::Admin,
                             QStringLiteral("releasing another's claim"))
            : actingOperator(**store, request.operatorName, TeamRole::Support,
                             QStringLiteral("claiming escalations"));
    if (!who)
        return cannotRun(who.message());
    EscalationClaims claims(**store, *who);
    claims.setLease(qint64(request.leaseMinutes) * 60 * 1000);
    if (request.release || request.releaseAny)
        return releaseClaim(line, **store, claims, request);

    std::optional<EscalationClaim> claim;
    if (request.next) {
        Expected<std::optional<EscalationClaim>> claimed = claims.claimNext();
        if (!claimed)
            return cannotRun(claimed.message());
        claim = *claimed;
    } else {
        Expected<EscalationClaim> claimed = claims.claim(request.escalation);
        if (!claimed)
            return cannotRun(claimed.message());
        claim = *claimed;
    }
    if (request.json)
        line.out() << QJsonDocument(jsonClaim(*who, claim)).toJson();
    else
        sayClaim(line.out(), claim);
    return claim && claim->taken ? 0 : 1;
}

} // namespace verity
