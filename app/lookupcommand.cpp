#include "lookupcommand.h"

#include "domain/hiddencharacters.h"
#include "domain/money.h"
#include "domain/registrychoice.h"
#include "provider/providerurl.h"
#include "resolution/escalationresolver.h"
#include "resolution/operatoridentity.h"
#include "resolution/providerconnection.h"
#include "store/storefactory.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

namespace verity {

namespace {

QString utcText(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODate);
}

// "already settled by alice at 2026-12-01T14:03:22Z: performed (verified)": who got there
// first, when, and how, for a job's log to answer "who closed this?" without opening the console.
QString settledElsewhere(const ResolutionReport &report)
{
    QString text = QStringLiteral("already settled by %1")
                           .arg(report.resolvedBy.isEmpty() ? QStringLiteral("another operator")
                                                            : report.resolvedBy);
    if (report.resolvedAt > 0)
        text += QStringLiteral(" at ") + utcText(report.resolvedAt);
    if (report.resolution)
        text += QStringLiteral(": %1").arg(settlementText(*report.resolution, report.basis));
    return text;
}

} // namespace

int runLookupCommand(const QStringList &arguments)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    QCommandLineParser parser;
    parser.setApplicationDescription(
            QStringLiteral(
                    "Ask the system each write went to (the payment provider, the courier, the "
                    "seller-messaging\n"
                    "service, all at --provider) what happened to calls whose outcome is unknown, and "
                    "settle\n"
                    "their escalations by what it says. The API key is read from %1.\n"
                    "Exit status: 0 no unknown outcome remains open; 1 some remain open; 2 an escalation\n"
                    "could not be looked up at all, or the lookup could not run.")
                    .arg(QLatin1String(ProviderConnection::apiKeyVariable)));
    parser.addHelpOption();
    const QCommandLineOption db(QStringLiteral("db"), QStringLiteral("The database file."),
                                QStringLiteral("PATH"), defaultStoreLocation());
    const QCommandLineOption provider(QStringLiteral("provider"), QStringLiteral("The provider's base URL."),
                                      QStringLiteral("URL"));
    const QCommandLineOption allOpen(QStringLiteral("all-open"),
                                     QStringLiteral("Look up every open escalation."));
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("Print the result as JSON."));
    const QCommandLineOption operatorName(
            QStringLiteral("operator"), QStringLiteral("Name written to the audit log (default: the user)."),
            QStringLiteral("NAME"), defaultOperatorName());
    const QCommandLineOption timeout(QStringLiteral("timeout"),
                                     QStringLiteral("How long to wait for each answer, in milliseconds."),
                                     QStringLiteral("MS"), QStringLiteral("5000"));
    const QCommandLineOption payment(
            QStringLiteral("payment"),
            QStringLiteral(
                    "The payment a refund is looked up under (pi_... or ch_...), found at the provider "
                    "when neither the order nor the calls name it; recorded in the audit log. "
                    "With one ESCALATION only."),
            QStringLiteral("ID"));
    parser.addOptions({db, provider, allOpen, json, operatorName, timeout, payment});
    parser.addPositionalArgument(QStringLiteral("ESCALATION"),
                                 QStringLiteral("Escalation numbers to look up."),
                                 QStringLiteral("[ESCALATION...]"));
    if (!parser.parse(arguments)) {
        err << "verity lookup: " << parser.errorText() << "\n";
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        // Qt's usage line names only the program, which without "lookup" would open the window.
        QString help = parser.helpText();
        help.replace(
                0, help.indexOf(u'\n'),
                QStringLiteral(
                        "Usage: verity lookup [--db PATH|URI] --provider URL (--all-open | ESCALATION...) "
                        "[--json]"));
        out << help;
        return 0;
    }
    if (!parser.isSet(provider)) {
        err << "verity lookup: --provider URL is required (for example --provider http://127.0.0.1:12111)\n";
        return 2;
    }
    // The key goes to this URL's origin only: strictly parsed (a bare path is no file: URL),
    // https or http on this machine.
    const Expected<QUrl> baseUrl = parseProviderUrl(parser.value(provider));
    if (!baseUrl) {
        err << "verity lookup: --provider: " << baseUrl.message() << "\n";
        return 2;
    }
    if (parser.isSet(allOpen) == !parser.positionalArguments().isEmpty()) {
        err << "verity lookup: name ESCALATION numbers or --all-open (one or the other)\n";
        return 2;
    }
    if (parser.isSet(payment) && parser.positionalArguments().size() != 1) {
        err << "verity lookup: --payment names the payment of one escalation: give exactly one ESCALATION\n";
        return 2;
    }
    if (const Expected<void> shown =
                checkPersonName(QStringLiteral("--operator"), parser.value(operatorName).trimmed());
        !shown) {
        err << "verity lookup: " << shown.message() << "\n";
        return 2;
    }
    bool timeoutOk = false;
    const int timeoutMs = parser.value(timeout).toInt(&timeoutOk);
    if (!timeoutOk || timeoutMs <= 0) {
        err << "verity lookup: --timeout: expected a positive number of milliseconds, got \""
            << parser.value(timeout) << "\"\n";
        return 2;
    }
    const QString apiKey = qEnvironmentVariable(ProviderConnection::apiKeyVariable).trimmed();
    // Asked without a key, the provider could only refuse: nothing is sent.
    if (apiKey.isEmpty()) {
        err << "verity lookup: " << ProviderConnection::apiKeyVariable
            << " is not set: set it to the provider's API key (a restricted read-only key is enough for "
               "lookups); nothing was asked\n";
        return 2;
    }

    // A mistyped path must not become an empty database that reports nothing to do.
    if (isFileLocation(parser.value(db)) && !QFileInfo::exists(parser.value(db))) {
        err << "verity lookup: " << parser.value(db) << ": no such database file\n";
        return 2;
    }
    Expected<std::unique_ptr<Store>> store = openStore(parser.value(db));
    if (!store) {
        err << "verity lookup: " << store.message() << "\n";
        return 2;
    }

    QList<qint64> ids;
    if (parser.isSet(allOpen)) {
        for (qint64 offset = 0;; offset += 500) {
            Expected<QList<EscalationRow>> page = (*store)->openEscalations(offset, 500);
            if (!page) {
                err << "verity lookup: " << page.message() << "\n";
                return 2;
            }
            for (const EscalationRow &row : std::as_const(*page))
                ids << row.id;
            if (page->size() < 500)
                break;
        }
    } else {
        for (const QString &text : parser.positionalArguments()) {
            bool ok = false;
            const qint64 id = text.toLongLong(&ok);
            if (!ok || id <= 0) {
                err << "verity lookup: ESCALATION: expected an escalation number, got \"" << text << "\"\n";
                return 2;
            }
            ids << id;
        }
    }

    ProviderSettings settings;
    settings.baseUrl = *baseUrl;
    settings.apiKey = apiKey;
    settings.timeoutMs = timeoutMs;
    ProviderClient client(settings);
    // In a team's database the lookups are the connected database user's.
    QString who = parser.value(operatorName);
    if (!(*store)->sessionUser().isEmpty()) {
        // The login's name is only a default: in a team's database the connected user acts.
        Expected<QString> user = operatorNameFor(**store, parser.isSet(operatorName) ? who : QString());
        if (!user) {
            err << "verity lookup: " << user.message() << "\n";
            return 2;
        }
        who = *user;
    }
    if (Expected<void> allowed =
                requireRole(**store, TeamRole::Support, QStringLiteral("looking up escalations"));
        !allowed) {
        err << "verity lookup: " << allowed.message() << "\n";
        return 2;
    }
    EscalationResolver resolver(**store, client, who);
    // The registries say where a pickup or a message is looked up; the user's file may add more.
    resolver.setRegistries(automaticRegistries(defaultUserRegistryPath()));
    if (parser.isSet(payment)) {
        if (Expected<PaymentReference> entered = resolver.enterPayment(ids.first(), parser.value(payment));
            !entered) {
            err << "verity lookup: --payment: " << entered.message() << "\n";
            return 2;
        }
    }

    QJsonArray results;
    bool failed = false;
    if (!parser.isSet(json))
        out << QStringLiteral("%1  %2  %3  %4  %5\n")
                        .arg(QStringLiteral("escalation"), -10)
                        .arg(QStringLiteral("ticket"), -16)
                        .arg(QStringLiteral("tool"), -16)
                        .arg(QStringLiteral("amount"), 10)
                        .arg(QStringLiteral("result"));
    for (qint64 id : std::as_const(ids)) {
        Expected<std::optional<EscalationDetail>> detail = (*store)->escalation(id);
        const ResolutionReport report = EscalationResolver::waitFor(resolver.lookUp(id));
        failed = failed || report.kind == ResolutionReport::Kind::Failed;
        const EscalationDetail escalation = detail && *detail ? **detail : EscalationDetail{};
        const QString amount = escalation.amountCents
                ? formatMoney(*escalation.amountCents, escalation.currency)
                : QStringLiteral("-");
        const bool elsewhere = report.kind == ResolutionReport::Kind::ResolvedElsewhere;
        const QString message = elsewhere ? settledElsewhere(report) : report.message;
        if (parser.isSet(json)) {
            // The refund this lookup found at the provider; null when it found none, or none was made.
            const QString refundId = report.evidence && report.evidence->verdict == LookupVerdict::Found
                            && escalation.toolClass == ToolClass::WriteMoney
                    ? report.evidence->recordId
                    : QString();
            QJsonObject row{
                    {QStringLiteral("escalation"), id},
                    {QStringLiteral("ticket"), escalation.ticketExtId},
                    {QStringLiteral("tool"), escalation.tool},
                    {QStringLiteral("result"), resolutionReportKindId(report.kind)},
                    {QStringLiteral("message"), message},
                    {QStringLiteral("refund_id"), refundId.isEmpty() ? QJsonValue() : QJsonValue(refundId)}};
            if (escalation.amountCents)
                row.insert(QStringLiteral("amount_cents"), *escalation.amountCents);
            if (report.resolution)
                row.insert(QStringLiteral("resolution"), resolutionId(*report.resolution));
            if ((elsewhere || report.kind == ResolutionReport::Kind::Resolved)
                && !report.resolvedBy.isEmpty()) {
                row.insert(QStringLiteral("resolved_by"), report.resolvedBy);
                row.insert(QStringLiteral("resolved_at"),
                           report.resolvedAt > 0 ? QJsonValue(utcText(report.resolvedAt)) : QJsonValue());
            }
            row.insert(QStringLiteral("reference"),
                       report.reference.isEmpty() ? QJsonValue() : QJsonValue(report.reference));
            if (report.evidence)
                row.insert(QStringLiteral("evidence_sha256"), report.evidence->evidenceSha256);
            results.append(row);
        } else {
            out << QStringLiteral("%1  %2  %3  %4  %5\n")
                            .arg(id, -10)
                            .arg(escalation.ticketExtId, -16)
                            .arg(escalation.tool, -16)
                            .arg(amount, 10)
                            .arg(message);
        }
    }
    Expected<qint64> open = (*store)->countOpenEscalations();
    const qint64 remaining = open ? *open : -1;
    if (parser.isSet(json)) {
        out << QJsonDocument(QJsonObject{{QStringLiteral("results"), results},
                                         {QStringLiteral("open_escalations"), remaining}})
                        .toJson();
    } else {
        out << (remaining == 0 ? QStringLiteral("No unknown outcomes remain.\n")
                               : QStringLiteral("%1 unknown outcome(s) remain open.\n").arg(remaining));
    }
    // 2: something could not be looked up at all (a wrong escalation number, a store error).
    if (failed)
        return 2;
    return remaining == 0 ? 0 : 1;
}

} // namespace verity
