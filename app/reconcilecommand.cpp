#include "reconcilecommand.h"

#include "domain/displaytext.h"
#include "domain/hiddencharacters.h"
#include "domain/money.h"
#include "finance/financereports.h"
#include "finance/payoutrecovery.h"
#include "finance/providerexport.h"
#include "print/financepdf.h"
#include "provider/providerurl.h"
#include "provider/statementfetch.h"
#include "reconcilejson.h"
#include "resolution/escalationtext.h"
#include "resolution/operatoridentity.h"
#include "resolution/providerconnection.h"
#include "resolution/reconciliationsettlement.h"
#include "store/storefactory.h"

#include <QCommandLineParser>
#include <QDate>
#include <QDateTime>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTextStream>

#include <algorithm>

namespace verity {

namespace {

const QString usage = QStringLiteral(
        "Usage: verity reconcile [--db PATH|URI] (--provider URL | --provider-export FILE) --from DATE --to "
        "DATE\n"
        "                        [--csv FILE] [--duplicates-csv FILE] [--pdf FILE] [--json] [--window "
        "SECONDS]\n"
        "                        [--settle [--operator NAME]]\n"
        "\n"
        "Reconciles Verity's ledger of refunds against the provider's for the days FROM to TO (UTC,\n"
        "both included) and finds duplicate payouts. Only reads the database, unless --settle.\n"
        "Exit status: 0 every row matched, 1 some row not matched, 2 could not run.\n"
        "\n"
        "Options:\n"
        "  --db PATH|URI            the database file (default: %1), or a team's PostgreSQL\n"
        "                           database (postgresql://[user@]host[:port]/dbname)\n"
        "  --provider URL           read the provider's refunds and balances over its API; the API key\n"
        "                           is read from %2\n"
        "  --provider-export FILE   read the provider's refunds from its CSV export instead\n"
        "  --from DATE, --to DATE   the period, as YYYY-MM-DD\n"
        "  --csv FILE               write every reconciliation row as CSV\n"
        "  --duplicates-csv FILE    write the duplicate payouts as CSV, one line per refund\n"
        "  --pdf FILE               write the report as PDF\n"
        "  --json                   print the result as JSON\n"
        "  --window SECONDS         how close in time refunds of the same seller, order and amount must\n"
        "                           be to count as duplicates when no intent key is known (default: %3)\n"
        "  --settle                 settle the unknown refunds the provider's records prove performed\n"
        "                           (verified by reconciliation), each with its evidence and audit entry,\n"
        "                           before reporting\n"
        "  --operator NAME          your name for the audit log (default: %4)\n");

struct Options
{
    QString db;
    QUrl provider;
    QString exportPath;
    QString from;
    QString to;
    Period period;
    QString csv;
    QString duplicatesCsv;
    QString pdf;
    bool json = false;
    qint64 windowMs = defaultDuplicateWindowMs;
    QString apiKey;
    bool settle = false;
    QString operatorName;
    bool operatorGiven = false; // else the default, which a team's database replaces by its user
};

bool isDate(const QString &text)
{
    static const QRegularExpression shape(QStringLiteral("^\\d{4}-\\d{2}-\\d{2}$"));
    return shape.match(text).hasMatch() && QDate::fromString(text, Qt::ISODate).isValid();
}

// Fails with the message to print; every one names the argument that was wrong.
Expected<Options> parseOptions(QCommandLineParser &parser)
{
    const auto fail = [](const QString &message) -> Expected<Options> { return makeError(message); };
    if (!parser.positionalArguments().isEmpty())
        return fail(QStringLiteral("unexpected argument \"%1\"").arg(parser.positionalArguments().first()));
    Options options;
    options.db = parser.value(QStringLiteral("db"));
    options.json = parser.isSet(QStringLiteral("json"));
    options.csv = parser.value(QStringLiteral("csv"));
    options.duplicatesCsv = parser.value(QStringLiteral("duplicates-csv"));
    options.pdf = parser.value(QStringLiteral("pdf"));
    options.settle = parser.isSet(QStringLiteral("settle"));
    options.operatorName = parser.value(QStringLiteral("operator")).trimmed();
    options.operatorGiven = parser.isSet(QStringLiteral("operator"));
    if (parser.isSet(QStringLiteral("operator")) && !options.settle)
        return fail(QStringLiteral("--operator names who settles: it goes with --settle"));
    if (options.settle && options.operatorName.isEmpty())
        return fail(QStringLiteral("--operator: the name may not be empty"));
    if (const Expected<void> shown = checkPersonName(QStringLiteral("--operator"), options.operatorName);
        !shown)
        return fail(shown.message());

    const bool api = parser.isSet(QStringLiteral("provider"));
    const bool file = parser.isSet(QStringLiteral("provider-export"));
    if (api == file)
        return fail(QStringLiteral(
                "name the provider's side: --provider URL or --provider-export FILE (one of them)"));
    if (api) {
        // The API key goes to this URL's origin only: https, or http on this machine.
        const Expected<QUrl> provider = parseProviderUrl(parser.value(QStringLiteral("provider")));
        if (!provider)
            return fail(QStringLiteral("--provider: %1").arg(provider.message()));
        options.provider = *provider;
        options.apiKey = qEnvironmentVariable(ProviderConnection::apiKeyVariable);
        if (options.apiKey.isEmpty())
            return fail(
                    QStringLiteral("--provider needs the provider's API key in the environment variable %1 "
                                   "(for the sandbox: export %1=sk_test_sandbox)")
                            .arg(QLatin1String(ProviderConnection::apiKeyVariable)));
    } else {
        options.exportPath = parser.value(QStringLiteral("provider-export"));
    }

    for (const char *name : {"from", "to"}) {
        const QString option = QLatin1String(name);
        if (!parser.isSet(option))
            return fail(QStringLiteral("--%1 DATE is required (YYYY-MM-DD)").arg(option));
        if (!isDate(parser.value(option))) {
            // In the form, but no day of the calendar: say which part is out of range.
            static const QRegularExpression form(QStringLiteral("^(\\d{4})-(\\d{2})-(\\d{2})$"));
            if (const QRegularExpressionMatch parts = form.match(parser.value(option)); parts.hasMatch()) {
                const int year = parts.captured(1).toInt();
                const int month = parts.captured(2).toInt();
                if (month < 1 || month > 12)
                    return fail(QStringLiteral("--%1: %2 has no month %3 (months run from 01 to 12)")
                                        .arg(option, parser.value(option), parts.captured(2)));
                return fail(QStringLiteral("--%1: %2 is no day of the calendar: %3 has %4 days")
                                    .arg(option, parser.value(option),
                                         QDate(year, month, 1).toString(QStringLiteral("MMMM yyyy")))
                                    .arg(QDate(year, month, 1).daysInMonth()));
            }
            return fail(QStringLiteral("--%1: expected a date as YYYY-MM-DD, got \"%2\"")
                                .arg(option, parser.value(option)));
        }
    }
    options.from = parser.value(QStringLiteral("from"));
    options.to = parser.value(QStringLiteral("to"));
    const Expected<Period> period = periodFromDates(options.from, options.to);
    if (!period)
        return fail(QStringLiteral("--from %1 --to %2: %3").arg(options.from, options.to, period.message()));
    options.period = *period;

    bool valid = false;
    const qint64 seconds = parser.value(QStringLiteral("window")).toLongLong(&valid);
    if (!valid || seconds <= 0 || seconds > 7 * 24 * 3600)
        return fail(
                QStringLiteral("--window: expected a whole number of seconds from 1 to 604800, got \"%1\"")
                        .arg(parser.value(QStringLiteral("window"))));
    options.windowMs = seconds * 1000;

    // A report written over the database (or over another report) would destroy it.
    const QString db = QFileInfo(options.db).absoluteFilePath();
    QStringList outputs;
    for (const auto &[option, path] :
         {std::pair{"--csv", options.csv}, std::pair{"--duplicates-csv", options.duplicatesCsv},
          std::pair{"--pdf", options.pdf}}) {
        if (path.isEmpty())
            continue;
        const QString absolute = QFileInfo(path).absoluteFilePath();
        if (absolute == db
            || (!options.exportPath.isEmpty()
                && absolute == QFileInfo(options.exportPath).absoluteFilePath()))
            return fail(QStringLiteral("%1 %2: that is an input file; name another file for the report")
                                .arg(QLatin1String(option), path));
        if (outputs.contains(absolute))
            return fail(QStringLiteral("%1 %2: another report is written there already")
                                .arg(QLatin1String(option), path));
        outputs << absolute;
    }
    return options;
}

QJsonObject reportsJson(const Options &options)
{
    QJsonObject reports;
    for (const auto &[name, path] :
         {std::pair{"csv", options.csv}, std::pair{"duplicates_csv", options.duplicatesCsv},
          std::pair{"pdf", options.pdf}})
        if (!path.isEmpty())
            reports.insert(QLatin1String(name), path);
    return reports;
}

QString sellerName(const SellerReconciliation &seller)
{
    return seller.sellerName.isEmpty() ? seller.sellerId : seller.sellerName;
}

// The sellers with a row outside Matched, what kinds, and both balances.
void printSellers(QTextStream &out, const Reconciliation &reconciliation)
{
    bool heading = false;
    for (const SellerReconciliation &seller : reconciliation.sellers) {
        QStringList parts;
        for (int i = 1; i < reconCategoryCount; ++i)
            if (const int count = seller.totals.count[std::size_t(i)]; count > 0)
                parts << QStringLiteral("%1 %2")
                                 .arg(reconCategoryText(ReconCategory(i)).toLower())
                                 .arg(count);
        if (parts.isEmpty())
            continue;
        if (!heading)
            out << "Sellers with rows not matched:\n";
        heading = true;
        const auto balance = [&seller](const std::optional<qint64> &cents, const char *absent) {
            return cents ? formatMoney(*cents, seller.currency) : QString(QLatin1String(absent));
        };
        out << "  " << sellerName(seller) << " (" << seller.sellerId
            << "): " << parts.join(QStringLiteral(", ")) << "; balance: Verity "
            << balance(seller.verityBalanceCents, "not reported") << ", provider "
            << balance(seller.providerBalanceCents, "not fetched") << "\n";
    }
}

// Each seller whose two balances differ, or moved apart: the rows and movements that make up
// the difference, and what the period's rows leave unexplained.
void printBalanceDifferences(QTextStream &out, const Reconciliation &reconciliation)
{
    bool heading = false;
    for (const SellerReconciliation &seller : reconciliation.sellers) {
        if (!seller.balanceDifference || seller.balanceDifference->isNil())
            continue;
        if (!heading)
            out << "Balance differences (the provider's balance less Verity's):\n";
        heading = true;
        const BalanceDifference &difference = *seller.balanceDifference;
        out << "  " << sellerName(seller) << " (" << seller.sellerId << "): Verity "
            << formatMoney(*seller.verityBalanceCents, seller.currency) << " as of "
            << (seller.verityBalanceAsOf > 0 ? formatUtcTime(seller.verityBalanceAsOf)
                                             : QStringLiteral("an unknown moment"))
            << ", provider " << formatMoney(*seller.providerBalanceCents, seller.currency) << " read "
            << formatUtcTime(seller.providerBalanceAt) << "\n"
            << "    " << differenceSummary(seller) << "\n";
        for (const BalanceDifferencePart &part : difference.parts)
            out << QStringLiteral("    %1  %2  %3: %4 (%5)\n")
                            .arg(formatDifference(part.cents, seller.currency), 12)
                            .arg(formatUtcTime(part.at), differencePartKind(reconciliation, part),
                                 differencePartReference(reconciliation, part),
                                 differenceCauseText(part.cause));
    }
}

// The refunds of intents the provider paid twice, each by its row's category.
void printPaidTwice(QTextStream &out, const Reconciliation &reconciliation)
{
    bool heading = false;
    for (const ReconRow &row : reconciliation.rows) {
        if (!row.paidTwice)
            continue;
        if (!heading)
            out << "Refunds of intents paid twice:\n";
        heading = true;
        out << "  " << reconRowCategoryText(row) << ": " << row.ticketExtId
            << (row.callExtId.isEmpty() ? QString() : QStringLiteral(" / ") + row.callExtId) << ", refund "
            << row.provider->id << ", " << formatMoney(row.providerCents(), row.currency) << " at "
            << formatUtcTime(row.provider->createdMs) << "\n";
    }
}

// Confirmed apart from possible, as the console counts them: a possible one awaits lookups.
void printDuplicates(QTextStream &out, const QList<DuplicatePayout> &duplicates, const QString &currency)
{
    qint64 atRisk = 0;
    qint64 mayBeAtRisk = 0;
    qsizetype confirmed = 0;
    for (const DuplicatePayout &duplicate : duplicates) {
        (duplicate.isConfirmed() ? atRisk : mayBeAtRisk) += duplicate.amountAtRiskCents;
        confirmed += duplicate.isConfirmed() ? 1 : 0;
    }
    out << "Duplicate payouts: " << confirmed << " confirmed";
    if (confirmed > 0)
        out << ", " << formatMoney(atRisk, currency) << " at risk";
    if (duplicates.size() > confirmed)
        out << "; " << duplicates.size() - confirmed << " possible (" << formatMoney(mayBeAtRisk, currency)
            << ") await lookups";
    out << "\n";
    for (const DuplicatePayout &duplicate : duplicates)
        out << "  " << duplicate.ticketExtIds().join(QStringLiteral(", ")) << " ("
            << (duplicate.sellerName.isEmpty() ? duplicate.sellerId : duplicate.sellerName)
            << (duplicate.orderId.isEmpty() ? QString() : QStringLiteral(", order ") + duplicate.orderId)
            << "): " << (duplicate.isConfirmed() ? "confirmed, " : "possible, ")
            << formatMoney(duplicate.amountAtRiskCents, duplicate.currency)
            << (duplicate.isConfirmed() ? " at risk, " : " may be at risk, ") << duplicate.events.size()
            << " refunds " << spanText(duplicate.spanMs) << " apart (" << duplicateBasisText(duplicate.basis)
            << ")\n";
}

void printSummary(QTextStream &out, const Options &options, const Reconciliation &reconciliation,
                  const QList<DuplicatePayout> &duplicates)
{
    const QString &currency = reconciliation.currency;
    out << "Reconciliation " << periodText(reconciliation.period) << "\n"
        << "Source: " << reconciliation.source << "\n";
    for (int i = 0; i < reconCategoryCount; ++i) {
        const auto index = std::size_t(i);
        out << QStringLiteral("  %1 %2  ledger %3  provider %4\n")
                        .arg(reconCategoryText(ReconCategory(i)), -15)
                        .arg(reconciliation.totals.count[index], 5)
                        .arg(formatMoney(reconciliation.totals.ledgerCents[index], currency), 14)
                        .arg(formatMoney(reconciliation.totals.providerCents[index], currency), 14);
    }
    printSellers(out, reconciliation);
    printBalanceDifferences(out, reconciliation);
    printPaidTwice(out, reconciliation);
    printDuplicates(out, duplicates, currency);
    for (const auto &[name, path] :
         {std::pair{"CSV", options.csv}, std::pair{"Duplicates CSV", options.duplicatesCsv},
          std::pair{"PDF", options.pdf}})
        if (!path.isEmpty())
            out << name << ": " << path << "\n";
    const qsizetype unmatched =
            std::count_if(reconciliation.rows.cbegin(), reconciliation.rows.cend(),
                          [](const ReconRow &row) { return row.category != ReconCategory::Matched; });
    if (unmatched == 0)
        out << "Every row is matched (" << reconciliation.rows.size() << ").\n";
    else
        out << unmatched << " of " << reconciliation.rows.size() << " rows not matched.\n";
}

Expected<ProviderStatement> providerStatement(const Options &options, const QList<SellerBalance> &sellers,
                                              const QString &currency)
{
    if (!options.exportPath.isEmpty())
        return readProviderExport(options.exportPath, options.period, currency);
    ProviderSettings settings;
    settings.baseUrl = options.provider;
    settings.apiKey = options.apiKey;
    QStringList accounts;
    for (const SellerBalance &seller : sellers)
        if (!seller.id.isEmpty())
            accounts << seller.id;
    const StatementAnswer answer = StatementFetch::run(settings, options.period, accounts);
    if (!answer.ok())
        return makeError(QStringLiteral("the provider at %1 could not be read: %2")
                                 .arg(options.provider.toDisplayString(), answer.error->message));
    return answer.statement;
}

// In order, stopping at the first that cannot be written (QSaveFile leaves no part of it).
Expected<void> writeReports(const Options &options, const Reconciliation &reconciliation,
                            const QList<DuplicatePayout> &duplicates, const QList<PayoutMark> &marks)
{
    if (!options.csv.isEmpty())
        if (Expected<void> written = writeReconciliationCsv(options.csv, reconciliation); !written)
            return written;
    if (!options.duplicatesCsv.isEmpty())
        if (Expected<void> written = writeDuplicatesCsv(options.duplicatesCsv, duplicates, marks); !written)
            return written;
    if (!options.pdf.isEmpty())
        return writeFinancePdf(options.pdf, reconciliation, duplicates, marks);
    return {};
}

Expected<StatementSettlement> settleProven(const QString &db, const ProviderStatement &statement,
                                           const QString &operatorName, bool operatorGiven)
{
    Expected<std::unique_ptr<Store>> store = openStore(db);
    if (!store)
        return store.error();
    if (Expected<void> allowed = requireRole(**store, TeamRole::Finance,
                                             QStringLiteral("settling from a provider's statement"));
        !allowed)
        return allowed.error();
    // In a team's database the settler is the database user; a name given for it must be theirs.
    const Expected<QString> who = operatorNameFor(
            **store, operatorGiven || (*store)->sessionUser().isEmpty() ? operatorName : QString());
    if (!who)
        return who.error();
    Expected<QList<ProvenCall>> proven = callsProvenBy(**store, statement);
    if (!proven)
        return proven.error();
    return settleFromStatement(**store, *proven, statement, *who);
}

// What the ledger says for the period: the payouts, every seller's balance, the marks finance made.
struct LedgerReading
{
    QList<LedgerPayout> payouts;
    QList<SellerBalance> sellers;
    QList<PayoutMark> marks;
};

Expected<LedgerReading> readLedger(Store &store, const Period &period)
{
    LedgerReading reading;
    Expected<QList<LedgerPayout>> payouts = store.payouts(period.fromMs, period.toMs);
    if (!payouts)
        return payouts.error();
    Expected<QList<SellerBalance>> sellers = store.sellerBalances();
    if (!sellers)
        return sellers.error();
    Expected<QList<PayoutMark>> marks = store.payoutMarks();
    if (!marks)
        return marks.error();
    return LedgerReading{std::move(*payouts), std::move(*sellers), std::move(*marks)};
}

// What --settle did, in words and as JSON: each call by name, and what it stood as (a person's
// check replaced is said so).
struct SettlementReport
{
    QString text;
    QJsonArray calls;
};

SettlementReport describeSettlement(const StatementSettlement &settled)
{
    SettlementReport report;
    report.text = settled.settled == 1
            ? QStringLiteral("Settled 1 call from this evidence:\n")
            : QStringLiteral("Settled %1 calls from this evidence:\n").arg(settled.settled);
    for (const ProvenCall &call : std::as_const(settled.settledCalls)) {
        const EscalationDetail &escalation = call.escalation;
        const bool attested = standsOnACheck(escalation);
        const QString before = attested
                ? settlementText(escalation.resolution.value_or(Resolution::Performed),
                                 SettlementBasis::Attestation)
                        + QStringLiteral(" by ") + escalation.resolvedBy
                : QStringLiteral("unknown");
        report.text += QStringLiteral("  escalation %1: %2 %3 on %4, %5: refund %6 (was %7)\n")
                               .arg(escalation.id)
                               .arg(escalation.tool, escalation.callExtId, escalation.ticketExtId,
                                    formatMoney(call.refund.amountCents, call.refund.currency),
                                    call.refund.id, visibleText(before));
        report.calls.append(QJsonObject{
                {QStringLiteral("escalation"), escalation.id},
                {QStringLiteral("ticket"), escalation.ticketExtId},
                {QStringLiteral("call"), escalation.callExtId},
                {QStringLiteral("refund"), call.refund.id},
                {QStringLiteral("amount_cents"), call.refund.amountCents},
                {QStringLiteral("was"), attested ? QStringLiteral("attested") : QStringLiteral("unknown")}});
    }
    for (const QString &elsewhere : std::as_const(settled.elsewhere))
        report.text += QStringLiteral("  %1\n").arg(elsewhere);
    for (const QString &held : std::as_const(settled.held))
        report.text += QStringLiteral("  left for its holder: %1\n").arg(held);
    return report;
}

} // namespace

int runReconcileCommand(const QStringList &arguments)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    const QString usageText =
            usage.arg(defaultStoreLocation(), QLatin1String(ProviderConnection::apiKeyVariable))
                    .arg(defaultDuplicateWindowMs / 1000)
                    .arg(defaultOperatorName());

    QCommandLineParser parser;
    parser.addHelpOption();
    const auto valued = [](const char *name, const char *valueName, const QString &defaultValue = {}) {
        return QCommandLineOption(QLatin1String(name), QString(), QLatin1String(valueName), defaultValue);
    };
    parser.addOptions({valued("db", "PATH", defaultStoreLocation()), valued("provider", "URL"),
                       valued("provider-export", "FILE"), valued("from", "DATE"), valued("to", "DATE"),
                       valued("csv", "FILE"), valued("duplicates-csv", "FILE"), valued("pdf", "FILE"),
                       valued("window", "SECONDS", QString::number(defaultDuplicateWindowMs / 1000)),
                       valued("operator", "NAME", defaultOperatorName()),
                       QCommandLineOption(QStringLiteral("settle")),
                       QCommandLineOption(QStringLiteral("json"))});
    if (!parser.parse(arguments)) {
        err << "verity reconcile: " << parser.errorText() << "\n\n" << usageText;
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        out << usageText;
        return 0;
    }
    const Expected<Options> options = parseOptions(parser);
    if (!options) {
        err << "verity reconcile: " << options.message() << "\n";
        return 2;
    }

    // Opening creates a missing file: a mistyped path must not reconcile an empty ledger.
    const QFileInfo dbFile(options->db);
    if (isFileLocation(options->db) && !dbFile.isFile()) {
        err << "verity reconcile: --db " << options->db << ": "
            << (dbFile.exists() ? "not a database file" : "no such database file") << "\n";
        return 2;
    }
    Expected<LedgerReading> ledger = [&]() -> Expected<LedgerReading> {
        Expected<std::unique_ptr<Store>> store = openStoreReadOnly(options->db);
        if (!store)
            return store.error();
        Expected<LedgerReading> read = readLedger(**store, options->period);
        if (!read)
            return makeError(QStringLiteral("%1: %2").arg(options->db, read.message()));
        return read; // the store closes: the provider may take a while
    }();
    if (!ledger) {
        err << "verity reconcile: " << ledger.message() << "\n";
        return 2;
    }

    const Expected<QString> currency = singleCurrency(ledger->payouts);
    if (!currency) {
        err << "verity reconcile: " << currency.message() << "\n";
        return 2;
    }
    const Expected<ProviderStatement> statement = providerStatement(*options, ledger->sellers, *currency);
    if (!statement) {
        err << "verity reconcile: " << statement.message() << "\n";
        return 2;
    }
    if (Expected<QString> same = singleCurrency(ledger->payouts, &*statement); !same) {
        err << "verity reconcile: " << same.message() << "\n";
        return 2;
    }
    SettlementReport settledReport;
    int settledCount = 0;
    if (options->settle) {
        // The provider's records settle what they prove; the report then reads the ledger as it now is.
        Expected<StatementSettlement> settled =
                settleProven(options->db, *statement, options->operatorName, options->operatorGiven);
        if (!settled) {
            err << "verity reconcile: --settle: " << settled.message() << "\n";
            return 2;
        }
        settledCount = settled->settled;
        settledReport = describeSettlement(*settled);
        Expected<std::unique_ptr<Store>> reread = openStoreReadOnly(options->db);
        ledger = reread ? readLedger(**reread, options->period) : Expected<LedgerReading>(reread.error());
        if (!ledger) {
            err << "verity reconcile: " << options->db << ": " << ledger.message() << "\n";
            return 2;
        }
    }

    const Reconciliation reconciliation =
            reconcile(ledger->payouts, *statement, ledger->sellers, QDateTime::currentMSecsSinceEpoch());
    const QList<DuplicatePayout> duplicates =
            findDuplicatePayouts(ledger->payouts, &*statement, options->windowMs);

    if (Expected<void> written = writeReports(*options, reconciliation, duplicates, ledger->marks);
        !written) {
        err << "verity reconcile: " << written.message() << "\n";
        return 2;
    }

    if (options->json) {
        QJsonObject json = reconciliationJson(options->from, options->to, reconciliation, duplicates,
                                              ledger->marks, reportsJson(*options));
        if (options->settle) {
            json.insert(QStringLiteral("settled"), settledCount);
            json.insert(QStringLiteral("settled_calls"), settledReport.calls);
        }
        out << QJsonDocument(json).toJson();
    } else {
        out << settledReport.text;
        printSummary(out, *options, reconciliation, duplicates);
    }
    return reconciliation.allMatched() ? 0 : 1;
}

} // namespace verity
