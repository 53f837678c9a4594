#include "resolvecommand.h"

#include "domain/hiddencharacters.h"
#include "provider/providerclient.h"
#include "resolution/escalationresolver.h"
#include "resolution/escalationtext.h"
#include "resolution/operatoridentity.h"
#include "store/storefactory.h"
#include "subcommandline.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

namespace verity {

namespace {

struct ResolveRequest
{
    QString db;
    qint64 escalation = 0;
    Attestation attestation;
    QString operatorName;
    bool json = false;
};

// Nothing when the check is recorded; else the exit status, said already.
std::optional<int> readRequest(SubcommandLine &line, const QStringList &arguments, ResolveRequest &request)
{
    QCommandLineParser &parser = line.parser();
    const QCommandLineOption db(QStringLiteral("db"), QStringLiteral("The database file."),
                                QStringLiteral("PATH"), defaultStoreLocation());
    const QCommandLineOption attest(QStringLiteral("attest"),
                                    QStringLiteral("What the check found: performed or not-performed."),
                                    QStringLiteral("performed|not-performed"));
    const QCommandLineOption reference(
            QStringLiteral("reference"),
            QStringLiteral("What was found (a refund, pickup or message id), or where you looked."),
            QStringLiteral("TEXT"));
    const QCommandLineOption note(QStringLiteral("note"), QStringLiteral("How you checked."),
                                  QStringLiteral("TEXT"));
    const QCommandLineOption operatorName(
            QStringLiteral("operator"),
            QStringLiteral("Your name, for the audit log (in a team's database, the database user you "
                           "connect as: leave it out)."),
            QStringLiteral("NAME"));
    const QCommandLineOption replacesCheck(
            QStringLiteral("replaces-check"),
            QStringLiteral("With --attest performed: the write a person's check found not performed was done "
                           "since (where no system can be asked, with the same key); this check replaces "
                           "that one."));
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("Print the result as JSON."));
    parser.addOptions({db, attest, reference, note, operatorName, replacesCheck, json});
    parser.addPositionalArgument(QStringLiteral("ESCALATION"), QStringLiteral("The escalation number."));
    if (std::optional<int> done =
                line.parse(arguments,
                           QStringLiteral("Usage: verity resolve [--db PATH|URI] ESCALATION --attest "
                                          "performed|not-performed --reference TEXT --note TEXT "
                                          "--operator NAME [--replaces-check] [--json]")))
        return done;
    if (parser.positionalArguments().size() != 1)
        return line.fail(QStringLiteral("name one ESCALATION number"));
    bool ok = false;
    request.escalation = parser.positionalArguments().first().toLongLong(&ok);
    if (!ok || request.escalation <= 0)
        return line.fail(QStringLiteral("ESCALATION: expected an escalation number, got \"%1\"")
                                 .arg(parser.positionalArguments().first()));
    if (!parser.isSet(attest))
        return line.fail(QStringLiteral("--attest performed|not-performed is required"));
    if (parser.value(attest) == u"performed")
        request.attestation.resolution = Resolution::Performed;
    else if (parser.value(attest) == u"not-performed")
        request.attestation.resolution = Resolution::NotPerformed;
    else
        return line.fail(QStringLiteral("--attest: expected performed or not-performed, got \"%1\"")
                                 .arg(parser.value(attest)));
    request.attestation.replacesAttestedAbsence = parser.isSet(replacesCheck);
    if (request.attestation.replacesAttestedAbsence
        && request.attestation.resolution != Resolution::Performed)
        return line.fail(QStringLiteral("--replaces-check: only a check that the write was performed since "
                                        "replaces one; got --attest %1")
                                 .arg(parser.value(attest)));
    // In a team's database the operator is the connected database user: --operator may be left out.
    const bool team = !isFileLocation(parser.value(db));
    for (const QCommandLineOption *required : {&reference, &note, &operatorName}) {
        if (team && required == &operatorName)
            continue;
        if (parser.value(*required).trimmed().isEmpty())
            return line.fail(
                    QStringLiteral("--%1 is required and may not be empty").arg(required->names().first()));
    }
    request.operatorName = parser.value(operatorName).trimmed();
    if (const Expected<void> shown = checkPersonName(QStringLiteral("--operator"), request.operatorName);
        !shown && !(team && request.operatorName.isEmpty()))
        return line.fail(shown.message());
    request.attestation.reference = parser.value(reference);
    request.attestation.note = parser.value(note);
    request.db = parser.value(db);
    request.json = parser.isSet(json);
    return std::nullopt;
}

QJsonObject jsonResult(qint64 escalation, const ResolutionReport &report)
{
    QJsonObject result{{QStringLiteral("escalation"), escalation},
                       {QStringLiteral("result"), resolutionReportKindId(report.kind)},
                       {QStringLiteral("message"), report.message}};
    if (report.resolution) {
        result.insert(QStringLiteral("resolution"), resolutionId(*report.resolution));
        result.insert(QStringLiteral("basis"), settlementBasisId(report.basis));
        result.insert(QStringLiteral("settled_by"), report.resolvedBy);
        result.insert(QStringLiteral("settled_at"), isoTime(report.resolvedAt));
    }
    result.insert(QStringLiteral("reference"),
                  report.reference.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(report.reference));
    return result;
}

} // namespace

int runResolveCommand(const QStringList &arguments)
{
    SubcommandLine line(QStringLiteral("resolve"),
                        QStringLiteral("Record an attested check of an unknown write that no system can be "
                                       "asked about: what you "
                                       "found where it "
                                       "went. It is stored and shown as attested, never as verified, and "
                                       "written to the audit log.\n"
                                       "Exit status: 0 settled, 1 another operator settled it first, 2 bad "
                                       "arguments or could not "
                                       "run."));
    ResolveRequest request;
    if (std::optional<int> done = readRequest(line, arguments, request))
        return *done;
    Expected<std::unique_ptr<Store>> store = openExistingStore(request.db);
    if (!store)
        return line.fail(store.message());
    // In a team's database, the connected database user; elsewhere the name given.
    Expected<QString> who = actingOperator(**store, request.operatorName, TeamRole::Support,
                                           QStringLiteral("recording a check"));
    if (!who)
        return line.fail(who.message());
    ProviderClient noProvider(ProviderSettings{}); // an attestation asks no system
    EscalationResolver resolver(**store, noProvider, *who);
    ResolutionReport report = resolver.attest(request.escalation, request.attestation);

    const bool settled = report.kind == ResolutionReport::Kind::Resolved
            || report.kind == ResolutionReport::Kind::ResolvedElsewhere;
    // Settled on a person's "not performed", and now found performed: the way to say so is named.
    if (report.kind == ResolutionReport::Kind::ResolvedElsewhere
        && request.attestation.resolution == Resolution::Performed
        && !request.attestation.replacesAttestedAbsence && report.resolution == Resolution::NotPerformed
        && report.basis == SettlementBasis::Attestation)
        report.message += QStringLiteral(" If it was performed since, record that with --replaces-check.");
    if (request.json)
        line.out() << QJsonDocument(jsonResult(request.escalation, report)).toJson();
    else if (settled)
        line.out() << "escalation " << request.escalation << ": " << report.message << "\n";
    else
        QTextStream(stderr) << "escalation " << request.escalation << ": " << report.message << "\n";
    switch (report.kind) {
    case ResolutionReport::Kind::Resolved:
        return 0;
    case ResolutionReport::Kind::ResolvedElsewhere:
        return 1;
    default:
        // Someone else working on it is a "not now", as for `verity claim`, not a bad command line.
        return report.cause == StoreErrc::ClaimedByOther ? 1 : 2;
    }
}

} // namespace verity
