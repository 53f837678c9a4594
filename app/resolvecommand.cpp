#include "resolvecommand.h"

#include "domain/hiddencharacters.h"
#include "provider/providerclient.h"
#include "resolution/escalationclaims.h"
#include "resolution/escalationresolver.h"
#include "resolution/escalationtext.h"
#include "resolution/operatoridentity.h"
#include "store/storefactory.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

namespace verity {

int runResolveCommand(const QStringList &arguments)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
            "Record an attested check of an unknown write that no system can be asked about: what you found "
            "where it "
            "went. It is stored and shown as attested, never as verified, and written to the audit log.\n"
            "Exit status: 0 settled, 1 another operator settled it first, 2 bad arguments or could not "
            "run."));
    parser.addHelpOption();
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
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("Print the result as JSON."));
    parser.addOptions({db, attest, reference, note, operatorName, json});
    parser.addPositionalArgument(QStringLiteral("ESCALATION"), QStringLiteral("The escalation number."));
    if (!parser.parse(arguments)) {
        err << "verity resolve: " << parser.errorText() << "\n";
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        // Qt's usage line names only the program, which without "resolve" would open the window.
        QString help = parser.helpText();
        help.replace(
                0, help.indexOf(u'\n'),
                QStringLiteral(
                        "Usage: verity resolve [--db PATH|URI] ESCALATION --attest performed|not-performed "
                        "--reference TEXT --note TEXT --operator NAME [--json]"));
        out << help;
        return 0;
    }
    const auto fail = [&](const QString &message) {
        err << "verity resolve: " << message << "\n";
        return 2;
    };
    if (parser.positionalArguments().size() != 1)
        return fail(QStringLiteral("name one ESCALATION number"));
    bool ok = false;
    const qint64 id = parser.positionalArguments().first().toLongLong(&ok);
    if (!ok || id <= 0)
        return fail(QStringLiteral("ESCALATION: expected an escalation number, got \"%1\"")
                            .arg(parser.positionalArguments().first()));
    if (!parser.isSet(attest))
        return fail(QStringLiteral("--attest performed|not-performed is required"));
    Attestation attestation;
    if (parser.value(attest) == u"performed")
        attestation.resolution = Resolution::Performed;
    else if (parser.value(attest) == u"not-performed")
        attestation.resolution = Resolution::NotPerformed;
    else
        return fail(QStringLiteral("--attest: expected performed or not-performed, got \"%1\"")
                            .arg(parser.value(attest)));
    // In a team's database the operator is the connected database user: --operator may be left out.
    const bool team = !isFileLocation(parser.value(db));
    for (const QCommandLineOption *required : {&reference, &note, &operatorName}) {
        if (team && required == &operatorName)
            continue;
        if (parser.value(*required).trimmed().isEmpty())
            return fail(
                    QStringLiteral("--%1 is required and may not be empty").arg(required->names().first()));
    }
    if (const Expected<void> shown =
                checkPersonName(QStringLiteral("--operator"), parser.value(operatorName).trimmed());
        !shown && !(team && parser.value(operatorName).trimmed().isEmpty()))
        return fail(shown.message());
    attestation.reference = parser.value(reference);
    attestation.note = parser.value(note);

    // A mistyped path must not become an empty database.
    if (isFileLocation(parser.value(db)) && !QFileInfo::exists(parser.value(db)))
        return fail(QStringLiteral("%1: no such database file").arg(parser.value(db)));
    Expected<std::unique_ptr<Store>> store = openStore(parser.value(db));
    if (!store)
        return fail(store.message());
    // In a team's database, the connected database user; elsewhere the name given (checked below).
    QString who = parser.value(operatorName).trimmed();
    if (!(*store)->sessionUser().isEmpty()) {
        Expected<QString> user = operatorNameFor(**store, who);
        if (!user)
            return fail(user.message());
        who = *user;
    }
    if (Expected<void> allowed = requireRole(**store, TeamRole::Support, QStringLiteral("recording a check"));
        !allowed)
        return fail(allowed.message());
    ProviderClient noProvider(ProviderSettings{}); // an attestation asks no system
    EscalationResolver resolver(**store, noProvider, who);
    // Someone else working on it is a "not now", as for `verity claim`, not a bad command line.
    bool heldByAnother = false;
    if (const Expected<EscalationDetail> detail = resolver.escalation(id))
        heldByAnother = !EscalationClaims(**store, who).refusal(*detail).isEmpty();
    const ResolutionReport report = resolver.attest(id, attestation);

    if (parser.isSet(json)) {
        QJsonObject result{{QStringLiteral("escalation"), id},
                           {QStringLiteral("result"), resolutionReportKindId(report.kind)},
                           {QStringLiteral("message"), report.message}};
        if (report.resolution) {
            result.insert(QStringLiteral("resolution"), resolutionId(*report.resolution));
            result.insert(QStringLiteral("basis"), settlementBasisId(report.basis));
            result.insert(QStringLiteral("settled_by"), report.resolvedBy);
            result.insert(QStringLiteral("settled_at"), isoTime(report.resolvedAt));
        }
        result.insert(QStringLiteral("reference"),
                      report.reference.isEmpty() ? QJsonValue(QJsonValue::Null)
                                                 : QJsonValue(report.reference));
        out << QJsonDocument(result).toJson();
    } else {
        (report.kind == ResolutionReport::Kind::Resolved
                         || report.kind == ResolutionReport::Kind::ResolvedElsewhere
                 ? out
                 : err)
                << "escalation " << id << ": " << report.message << "\n";
    }
    switch (report.kind) {
    case ResolutionReport::Kind::Resolved:
        return 0;
    case ResolutionReport::Kind::ResolvedElsewhere:
        return 1;
    default:
        return heldByAnother ? 1 : 2;
    }
}

} // namespace verity
