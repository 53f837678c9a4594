#include "lookupcommand.h"

#include "domain/hiddencharacters.h"
#include "domain/money.h"
#include "domain/registrychoice.h"
#include "provider/providerurl.h"
#include "resolution/escalationresolver.h"
#include "resolution/escalationtext.h"
#include "resolution/operatoridentity.h"
#include "resolution/providerconnection.h"
#include "store/storefactory.h"
#include "subcommandline.h"

#include <QDateTime>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

namespace verity {

namespace {

// "already settled by alice at 2026-12-01T14:03:22Z: performed (verified)": who got there
// first, when, and how, for a job's log to answer "who closed this?" without opening the console.
QString settledElsewhere(const ResolutionReport &report)
{
    QString text = QStringLiteral("already settled by %1")
                           .arg(report.resolvedBy.isEmpty() ? QStringLiteral("another operator")
                                                            : report.resolvedBy);
    if (report.resolvedAt > 0)
        text += QStringLiteral(" at ") + isoTime(report.resolvedAt);
    if (report.resolution)
        text += QStringLiteral(": %1").arg(settlementText(*report.resolution, report.basis));
    return text;
}

// What the command line asks for, checked.
struct LookupRequest
{
    QString db;
    ProviderSettings provider;
    QList<qint64> escalations; // empty: every open one
    bool allOpen = false;
    std::optional<QString> payment;
    QString operatorName;
    bool operatorNamed = false;
    bool json = false;
};

// Nothing when the lookup goes on; else the exit status, said already.
std::optional<int> readRequest(SubcommandLine &line, const QStringList &arguments, LookupRequest &request)
{
    QCommandLineParser &parser = line.parser();
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
    if (std::optional<int> done =
                line.parse(arguments,
                           QStringLiteral("Usage: verity lookup [--db PATH|URI] --provider URL (--all-open | "
                                          "ESCALATION...) [--json]")))
        return done;
    if (!parser.isSet(provider))
        return line.fail(
                QStringLiteral("--provider URL is required (for example --provider http://127.0.0.1:12111)"));
    // The key goes to this URL's origin only: strictly parsed (a bare path is no file: URL),
    // https or http on this machine.
    const Expected<QUrl> baseUrl = parseProviderUrl(parser.value(provider));
    if (!baseUrl)
        return line.fail(QStringLiteral("--provider: ") + baseUrl.message());
    request.allOpen = parser.isSet(allOpen);
    if (request.allOpen == !parser.positionalArguments().isEmpty())
        return line.fail(QStringLiteral("name ESCALATION numbers or --all-open (one or the other)"));
    if (parser.isSet(payment) && parser.positionalArguments().size() != 1)
        return line.fail(
                QStringLiteral("--payment names the payment of one escalation: give exactly one ESCALATION"));
    if (const Expected<void> shown =
                checkPersonName(QStringLiteral("--operator"), parser.value(operatorName).trimmed());
        !shown)
        return line.fail(shown.message());
    bool timeoutOk = false;
    request.provider.timeoutMs = parser.value(timeout).toInt(&timeoutOk);
    if (!timeoutOk || request.provider.timeoutMs <= 0)
        return line.fail(QStringLiteral("--timeout: expected a positive number of milliseconds, got \"%1\"")
                                 .arg(parser.value(timeout)));
    request.provider.baseUrl = *baseUrl;
    request.provider.apiKey = qEnvironmentVariable(ProviderConnection::apiKeyVariable).trimmed();
    // Asked without a key, the provider could only refuse: nothing is sent.
    if (request.provider.apiKey.isEmpty())
        return line.fail(QStringLiteral("%1 is not set: set it to the provider's API key (a restricted "
                                        "read-only key is enough for lookups); nothing was asked")
                                 .arg(QLatin1String(ProviderConnection::apiKeyVariable)));
    for (const QString &text : parser.positionalArguments()) {
        bool ok = false;
        const qint64 id = text.toLongLong(&ok);
        if (!ok || id <= 0)
            return line.fail(
                    QStringLiteral("ESCALATION: expected an escalation number, got \"%1\"").arg(text));
        request.escalations << id;
    }
    request.db = parser.value(db);
    if (parser.isSet(payment))
        request.payment = parser.value(payment);
    request.operatorName = parser.value(operatorName);
    request.operatorNamed = parser.isSet(operatorName);
    request.json = parser.isSet(json);
    return std::nullopt;
}

Expected<QList<qint64>> everyOpenEscalation(Store &store)
{
    QList<qint64> ids;
    for (qint64 offset = 0;; offset += 500) {
        Expected<QList<EscalationRow>> page = store.openEscalations(offset, 500);
        if (!page)
            return page.error();
        for (const EscalationRow &row : std::as_const(*page))
            ids << row.id;
        if (page->size() < 500)
            return ids;
    }
}

QString tableLine(const QString &escalation, const QString &ticket, const QString &tool,
                  const QString &amount, const QString &result)
{
    return QStringLiteral("%1  %2  %3  %4  %5\n")
            .arg(escalation, -10)
            .arg(ticket, -16)
            .arg(tool, -16)
            .arg(amount, 10)
            .arg(result);
}

QJsonObject jsonRow(qint64 id, const EscalationDetail &escalation, const ResolutionReport &report,
                    const QString &message)
{
    // The refund this lookup found at the provider; null when it found none, or none was made.
    const QString refundId = report.evidence && report.evidence->verdict == LookupVerdict::Found
                    && escalation.toolClass == ToolClass::WriteMoney
            ? report.evidence->recordId
            : QString();
    QJsonObject row{{QStringLiteral("escalation"), id},
                    {QStringLiteral("ticket"), escalation.ticketExtId},
                    {QStringLiteral("tool"), escalation.tool},
                    {QStringLiteral("result"), resolutionReportKindId(report.kind)},
                    {QStringLiteral("message"), message},
                    {QStringLiteral("refund_id"), refundId.isEmpty() ? QJsonValue() : QJsonValue(refundId)}};
    if (escalation.amountCents)
        row.insert(QStringLiteral("amount_cents"), *escalation.amountCents);
    if (report.resolution)
        row.insert(QStringLiteral("resolution"), resolutionId(*report.resolution));
    const bool settled = report.kind == ResolutionReport::Kind::ResolvedElsewhere
            || report.kind == ResolutionReport::Kind::Resolved;
    if (settled && !report.resolvedBy.isEmpty()) {
        row.insert(QStringLiteral("resolved_by"), report.resolvedBy);
        row.insert(QStringLiteral("resolved_at"),
                   report.resolvedAt > 0 ? QJsonValue(isoTime(report.resolvedAt)) : QJsonValue());
    }
    row.insert(QStringLiteral("reference"),
               report.reference.isEmpty() ? QJsonValue() : QJsonValue(report.reference));
    if (report.evidence)
        row.insert(QStringLiteral("evidence_sha256"), report.evidence->evidenceSha256);
    return row;
}

} // namespace

int runLookupCommand(const QStringList &arguments)
{
    SubcommandLine line(
            QStringLiteral("lookup"),
            QStringLiteral(
                    "Ask the system each write went to (the payment provider, the courier, the "
                    "seller-messaging\n"
                    "service, all at --provider) what happened to calls whose outcome is unknown, and "
                    "settle\n"
                    "their escalations by what it says. The API key is read from %1.\n"
                    "Exit status: 0 no unknown outcome remains open; 1 some remain open, or are held by\n"
                    "another person's claim; 2 an escalation could not be looked up at all, or the lookup\n"
                    "could not run.")
                    .arg(QLatin1String(ProviderConnection::apiKeyVariable)));
    LookupRequest request;
    if (std::optional<int> done = readRequest(line, arguments, request))
        return *done;
    Expected<std::unique_ptr<Store>> store = openExistingStore(request.db);
    if (!store)
        return line.fail(store.message());
    Store &db = **store;
    Expected<QList<qint64>> ids = request.allOpen ? everyOpenEscalation(db) : request.escalations;
    if (!ids)
        return line.fail(ids.message());
    // In a team's database the connected user acts, and the login's name is only a default.
    const bool team = !db.sessionUser().isEmpty();
    Expected<QString> who =
            actingOperator(db, request.operatorNamed || !team ? request.operatorName : QString(),
                           TeamRole::Support, QStringLiteral("looking up escalations"));
    if (!who)
        return line.fail(who.message());
    ProviderClient client(request.provider);
    EscalationResolver resolver(db, client, *who);
    // The registries say where a pickup or a message is looked up; the user's file may add more.
    resolver.setRegistries(automaticRegistries(defaultUserRegistryPath()));
    if (request.payment) {
        if (Expected<PaymentReference> entered = resolver.enterPayment(ids->first(), *request.payment);
            !entered)
            return line.fail(QStringLiteral("--payment: ") + entered.message());
    }

    QTextStream &out = line.out();
    QJsonArray results;
    bool failed = false;
    if (!request.json)
        out << tableLine(QStringLiteral("escalation"), QStringLiteral("ticket"), QStringLiteral("tool"),
                         QStringLiteral("amount"), QStringLiteral("result"));
    for (qint64 id : std::as_const(*ids)) {
        Expected<std::optional<EscalationDetail>> detail = db.escalation(id);
        const ResolutionReport report = EscalationResolver::waitFor(resolver.lookUp(id));
        failed = failed || report.kind == ResolutionReport::Kind::Failed;
        const EscalationDetail escalation = detail && *detail ? **detail : EscalationDetail{};
        const QString message = report.kind == ResolutionReport::Kind::ResolvedElsewhere
                ? settledElsewhere(report)
                : report.message;
        if (request.json) {
            results.append(jsonRow(id, escalation, report, message));
        } else {
            const QString amount = escalation.amountCents
                    ? formatMoney(*escalation.amountCents, escalation.currency)
                    : QStringLiteral("-");
            out << tableLine(QString::number(id), escalation.ticketExtId, escalation.tool, amount, message);
        }
    }
    Expected<qint64> open = db.countOpenEscalations();
    const qint64 remaining = open ? *open : -1;
    if (request.json) {
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
