// The finance reports as finance opens them: the CSV read back field by field with the
// project's own RFC 4180 reader, the PDF read back as text through pdftotext, both with
// text that a careless writer would break (commas, quotes, line breaks, markup).

#include "domain/money.h"
#include "finance/csvtable.h"
#include "finance/financereports.h"
#include "print/financepdf.h"
#include "support/testmacros.h"
#include "support/time.h"

#include <QDateTime>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimeZone>

using namespace verity;
using verity::test::utcMs;

namespace {

const QString awkwardSeller = QStringLiteral("Ashcombe \"Fine\", Furniture");
const QString markupNote = QStringLiteral("second refund, same intent\n<b>markup</b> & \"quotes\"");

LedgerPayout payout(const QString &ticket, const QString &refundId, qint64 cents, qint64 at)
{
    LedgerPayout p;
    p.callId = 7;
    p.ticketId = 3;
    p.ticketExtId = ticket;
    p.callExtId = ticket + QStringLiteral("/c2");
    p.tool = QStringLiteral("issue_refund");
    p.sellerId = QStringLiteral("acct_ashcombe");
    p.sellerName = awkwardSeller;
    p.orderId = QStringLiteral("ORD-1");
    p.paymentIntent = QStringLiteral("pi_ORD-1");
    p.intentKey = QStringLiteral("ik_,\"1\"");
    p.refundId = refundId;
    p.amountCents = cents;
    p.at = at;
    p.effect = PayoutEffect::Performed;
    return p;
}

StatementRefund refund(const QString &id, qint64 cents, qint64 at)
{
    StatementRefund r;
    r.id = id;
    r.paymentIntent = QStringLiteral("pi_ORD-1");
    r.amountCents = cents;
    r.currency = QStringLiteral("USD");
    r.status = QStringLiteral("succeeded");
    r.createdMs = at;
    r.intentKey = QStringLiteral("ik_,\"1\"");
    r.ticketExtId = QStringLiteral("SU-88421");
    r.account = QStringLiteral("acct_ashcombe");
    return r;
}

ReconRow row(ReconCategory category, std::optional<LedgerPayout> ledger,
             std::optional<StatementRefund> provider, const QString &note)
{
    ReconRow r;
    r.category = category;
    r.ledger = std::move(ledger);
    r.provider = std::move(provider);
    r.matchedBy = category == ReconCategory::Matched ? QStringLiteral("intent key") : QString();
    r.sellerId = QStringLiteral("acct_ashcombe");
    r.sellerName = awkwardSeller;
    r.ticketExtId = QStringLiteral("SU-88421");
    r.callExtId = QStringLiteral("SU-88421/c2");
    r.note = note;
    return r;
}

void count(ReconTotals &totals, const ReconRow &r)
{
    const auto i = std::size_t(r.category);
    ++totals.count[i];
    totals.ledgerCents[i] += r.ledger ? r.ledger->amountCents : 0;
    totals.providerCents[i] += r.provider ? r.provider->amountCents : 0;
}

// One row of each category, totals counted here rather than by the code under test.
Reconciliation sample(int extraUnmatched = 0)
{
    Reconciliation reconciliation;
    reconciliation.period = Period{utcMs(2026, 3, 1), utcMs(2026, 3, 31) + 24 * 3600 * 1000};
    reconciliation.source = QStringLiteral("http://127.0.0.1:12111");
    reconciliation.generatedAt = utcMs(2026, 3, 31, 18, 5);
    reconciliation.rows = {
            row(ReconCategory::Matched,
                payout(QStringLiteral("SU-88421"), QStringLiteral("re_1"), 11800,
                       utcMs(2026, 3, 17, 14, 32, 7)),
                refund(QStringLiteral("re_1"), 11800, utcMs(2026, 3, 17, 14, 32, 8)),
                QStringLiteral("matched by intent key")),
            row(ReconCategory::ProviderOnly, std::nullopt,
                refund(QStringLiteral("re_2"), 11800, utcMs(2026, 3, 17, 14, 32, 9)), markupNote),
            row(ReconCategory::LedgerOnly,
                payout(QStringLiteral("SU-1,2"), QString(), 2550, utcMs(2026, 3, 18, 9, 0, 0, 250)),
                std::nullopt, QStringLiteral("=HYPERLINK(\"x\") no refund at the provider")),
            row(ReconCategory::AmountDiffers,
                payout(QStringLiteral("SU-3"), QStringLiteral("re_3"), 1000, utcMs(2026, 3, 19, 9, 0)),
                refund(QStringLiteral("re_3"), 1100, utcMs(2026, 3, 19, 9, 0, 1)),
                QStringLiteral("the provider refunded $1.00 more")),
    };
    for (int i = 0; i < extraUnmatched; ++i)
        reconciliation.rows.append(row(ReconCategory::LedgerOnly,
                                       payout(QStringLiteral("SU-9%1").arg(i, 3, 10, QLatin1Char('0')),
                                              QString(), 100 + i, utcMs(2026, 3, 20) + i),
                                       std::nullopt, QStringLiteral("bulk row %1").arg(i)));
    // The first two refunds are of one intent: it was paid twice.
    reconciliation.rows[0].paidTwice = true;
    reconciliation.rows[1].paidTwice = true;
    SellerReconciliation seller;
    seller.sellerId = QStringLiteral("acct_ashcombe");
    seller.sellerName = awkwardSeller;
    // Stated between the first refund and the second; the provider's read after the period,
    // when $3.00 more had left than the rows of the period account for.
    seller.verityBalanceCents = 7100;
    seller.verityBalanceAsOf = utcMs(2026, 3, 17, 14, 32, 8, 500);
    seller.providerBalanceCents = 7100 - 11800 - 1100 - 300;
    seller.providerBalanceAt = utcMs(2026, 4, 2, 9, 0);
    for (const ReconRow &r : std::as_const(reconciliation.rows)) {
        count(reconciliation.totals, r);
        count(seller.totals, r);
    }
    reconciliation.sellers = {seller};
    ProviderStatement statement;
    statement.period = reconciliation.period;
    statement.fetchedAt = seller.providerBalanceAt;
    explainBalanceDifferences(reconciliation, statement);
    return reconciliation;
}

QList<DuplicatePayout> duplicates()
{
    DuplicatePayout duplicate;
    duplicate.key = QStringLiteral("intent:ik_,\"1\"");
    duplicate.basis = DuplicateBasis::IntentKey;
    PayoutEvent first;
    first.payout =
            payout(QStringLiteral("SU-88421"), QStringLiteral("re_1"), 11800, utcMs(2026, 3, 17, 14, 32, 7));
    first.atProvider = refund(QStringLiteral("re_1"), 11800, utcMs(2026, 3, 17, 14, 32, 8));
    PayoutEvent second;
    second.atProvider = refund(QStringLiteral("re_2"), 11800, utcMs(2026, 3, 17, 14, 32, 9));
    duplicate.events = {first, second};
    duplicate.sellerId = QStringLiteral("acct_ashcombe");
    duplicate.sellerName = awkwardSeller;
    duplicate.orderId = QStringLiteral("ORD-1");
    duplicate.amountAtRiskCents = 11800;
    duplicate.spanMs = 1001;
    duplicate.confirmedAtProvider = true;
    return {duplicate};
}

QList<PayoutMark> marks()
{
    PayoutMark mark;
    mark.id = 1;
    mark.duplicateKey = QStringLiteral("intent:ik_,\"1\"");
    mark.state = RecoveryState::RecoveryRequested;
    mark.note = QStringLiteral("asked the buyer, \"politely\"\nsee <b>ticket</b>");
    mark.operatorName = QStringLiteral("ana");
    mark.at = utcMs(2026, 3, 20, 10, 0);
    return {mark};
}

QList<QStringList> readCsv(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const Expected<QList<CsvRecord>> records = parseCsv(file.readAll(), path);
    if (!records)
        qWarning("%s", qPrintable(records.message()));
    QList<QStringList> rows;
    for (const CsvRecord &record : records ? *records : QList<CsvRecord>())
        rows.append(record.fields);
    return rows;
}

// pdftotext -layout keeps a table's row on one line; the empty string when it cannot run.
QString pdfText(const QString &path)
{
    QProcess process;
    process.start(QStringLiteral("pdftotext"), {QStringLiteral("-layout"), path, QStringLiteral("-")});
    if (!process.waitForFinished(60000) || process.exitCode() != 0)
        return {};
    // NFKC: the PDF's font may set "ff" as one ligature glyph.
    const QString text =
            QString::fromUtf8(process.readAllStandardOutput()).normalized(QString::NormalizationForm_KC);
    return text;
}

// The text of each page, in order (pdftotext ends every page with a form feed).
QStringList pdfPages(const QString &path)
{
    QStringList pages = pdfText(path).split(u'\f');
    if (!pages.isEmpty() && pages.last().trimmed().isEmpty())
        pages.removeLast();
    return pages;
}

QStringList textLines(const QString &page)
{
    QStringList lines;
    for (const QString &line : page.split(u'\n')) {
        if (!line.trimmed().isEmpty())
            lines.append(line.simplified());
    }
    return lines;
}

bool isHeading(const QString &line)
{
    static const QRegularExpression heading(
            QStringLiteral("^(Totals|Sellers|Balance differences \\(\\d+\\)|Rows not matched, or paid twice "
                           "\\(\\d+\\)|Duplicate payouts \\(\\d+\\))$"));
    return heading.match(line).hasMatch();
}

// Ids as long as real ones, beside a note long enough to want the whole line: what squeezes a
// table's id columns.
QStringList longIds(int row)
{
    const QString n = QStringLiteral("%1").arg(row, 4, 10, QLatin1Char('0'));
    return {QStringLiteral("T-20260320-") + n, // ticket
            QStringLiteral("call_6f1e2b9c0d4a4e7fa1b2c3d4") + n, // call
            QStringLiteral("re_3PqL9sLkdIwHu7ix1Zb8Xy") + n, // refund
            QStringLiteral("fenwick-rowe-garden-and-nursery-") + n}; // seller: a hyphen is no place to break
}

Reconciliation longIdSample(int rows)
{
    Reconciliation reconciliation = sample();
    const QString note =
            QStringLiteral("the provider refunded this payment although Verity's ledger has no record of "
                           "it; traced to the unknown call carrying the same intent key, which waits "
                           "in the escalation queue for a lookup");
    for (int i = 0; i < rows; ++i) {
        const QStringList ids = longIds(i);
        ReconRow r = row(ReconCategory::ProviderOnly, std::nullopt,
                         refund(ids.at(2), 5000 + i, utcMs(2026, 3, 21) + i), note);
        r.ticketExtId = ids.at(0);
        r.callExtId = ids.at(1);
        r.sellerId = ids.at(3);
        r.sellerName = QStringLiteral("Seller %1").arg(i);
        count(reconciliation.totals, r);
        SellerReconciliation seller;
        seller.sellerId = ids.at(3);
        seller.sellerName = r.sellerName;
        count(seller.totals, r);
        reconciliation.sellers.append(seller);
        reconciliation.rows.append(std::move(r));
    }
    return reconciliation;
}

} // namespace

class FinanceReportsTest : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void reconciliationCsvRoundTrips();
    void duplicatesCsvRoundTrips();
    void pdfHoldsTheReport();
    void pdfRunsOverPages();
    void pdfPagesCarryTitleAndPeriod();
    void pdfKeepsHeadingsWithWhatFollows();
    void pdfKeepsIdsWhole();
    void pdfKeepsRowsWhole();
    void unwritablePathLeavesNothing();

private:
    QTemporaryDir m_dir;
    bool m_pdftotext = false;
};

void FinanceReportsTest::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_pdftotext = !QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty();
}

void FinanceReportsTest::reconciliationCsvRoundTrips()
{
    const Reconciliation reconciliation = sample();
    const QString path = m_dir.filePath(QStringLiteral("recon.csv"));
    const Expected<void> written = writeReconciliationCsv(path, reconciliation);
    QVERIFY_OK(written);
    // Three tables, an empty line between them: the report's fields, the totals, the rows.
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    QList<QByteArray> tables{QByteArray()};
    for (const QByteArray &line : bytes.split('\n')) {
        if (line == "\r" && tables.size() < 3)
            tables.append(QByteArray());
        else
            tables.last() += line + '\n';
    }
    tables.last().chop(1); // the split's last piece had no line end
    QCOMPARE(tables.size(), 3);
    const auto parse = [](const QByteArray &table) {
        const Expected<QList<CsvRecord>> records = parseCsv(table, QStringLiteral("report.csv"));
        QList<QStringList> rows;
        for (const CsvRecord &record : records ? *records : QList<CsvRecord>())
            rows.append(record.fields);
        return rows;
    };

    // What a spreadsheet shows first: the period, where it came from and when it was made.
    const QList<QStringList> fields = parse(tables.at(0));
    QCOMPARE(fields,
             (QList<QStringList>{
                     {QStringLiteral("field"), QStringLiteral("value")},
                     {QStringLiteral("report"), QStringLiteral("Verity reconciliation")},
                     {QStringLiteral("period"), QStringLiteral("2026-03-01 to 2026-03-31 (UTC)")},
                     {QStringLiteral("period_from"), QStringLiteral("2026-03-01")},
                     {QStringLiteral("period_to"), QStringLiteral("2026-03-31")},
                     {QStringLiteral("source"), QStringLiteral("http://127.0.0.1:12111")},
                     {QStringLiteral("currency"), QStringLiteral("USD")},
                     {QStringLiteral("generated_at"), QStringLiteral("2026-03-31T18:05:00.000Z")}}));

    // The totals per category, as counted here, and over all rows.
    const QList<QStringList> totals = parse(tables.at(1));
    const auto totalLine = [](const char *name, int rows, qint64 ledger, qint64 provider) {
        return QStringList{QLatin1String(name), QString::number(rows),     QString::number(ledger),
                           formatMoney(ledger), QString::number(provider), formatMoney(provider)};
    };
    QCOMPARE(totals,
             (QList<QStringList>{{QStringLiteral("total"), QStringLiteral("rows"),
                                  QStringLiteral("ledger_cents"), QStringLiteral("ledger_amount"),
                                  QStringLiteral("provider_cents"), QStringLiteral("provider_amount")},
                                 totalLine("matched", 1, 11800, 11800),
                                 totalLine("provider_only", 1, 0, 11800),
                                 totalLine("ledger_only", 1, 2550, 0),
                                 totalLine("amount_differs", 1, 1000, 1100),
                                 totalLine("all", 4, 15350, 24700)}));

    // The rows, one table to the end of the file, read as a program would read it.
    const QList<QStringList> rows = parse(tables.at(2));
    QCOMPARE(readCsv(path).size(), fields.size() + totals.size() + rows.size()); // nothing else in the file
    QCOMPARE(rows.size(), 1 + reconciliation.rows.size());
    const QStringList header = rows.first();
    QCOMPARE(header.first(), QStringLiteral("category"));
    const auto field = [&header](const QStringList &r, const char *name) {
        return r.value(header.indexOf(QLatin1String(name)));
    };
    for (qsizetype i = 1; i < rows.size(); ++i)
        QCOMPARE(rows.at(i).size(), header.size());

    const QStringList matched = rows.at(1);
    QCOMPARE(field(matched, "category"), QStringLiteral("matched"));
    QCOMPARE(field(matched, "seller_name"), awkwardSeller);
    QCOMPARE(field(matched, "intent_key"), QStringLiteral("ik_,\"1\""));
    QCOMPARE(field(matched, "ledger_cents"), QStringLiteral("11800"));
    QCOMPARE(field(matched, "ledger_amount"), formatMoney(11800));
    QCOMPARE(field(matched, "ledger_at"), QStringLiteral("2026-03-17T14:32:07.000Z"));
    QCOMPARE(field(matched, "provider_created_at"), QStringLiteral("2026-03-17T14:32:08.000Z"));
    QCOMPARE(field(matched, "matched_by"), QStringLiteral("intent key"));

    const QStringList providerOnly = rows.at(2);
    QCOMPARE(field(providerOnly, "category"), QStringLiteral("provider_only"));
    QCOMPARE(field(providerOnly, "note"), markupNote);
    QCOMPARE(field(providerOnly, "ledger_cents"), QString()); // no ledger side: empty, not 0
    QCOMPARE(field(providerOnly, "provider_refund_id"), QStringLiteral("re_2"));
    QCOMPARE(field(providerOnly, "provider_status"), QStringLiteral("succeeded"));

    const QStringList ledgerOnly = rows.at(3);
    QCOMPARE(field(ledgerOnly, "ticket"), QStringLiteral("SU-88421"));
    QCOMPARE(field(ledgerOnly, "ledger_amount"), formatMoney(2550));
    QCOMPARE(field(ledgerOnly, "ledger_at"), QStringLiteral("2026-03-18T09:00:00.250Z"));
    // A spreadsheet would run it as a formula: the writer defuses it with an apostrophe.
    QCOMPARE(field(ledgerOnly, "note"), QStringLiteral("'=HYPERLINK(\"x\") no refund at the provider"));

    const QStringList differs = rows.at(4);
    QCOMPARE(field(differs, "category"), QStringLiteral("amount_differs"));
    QCOMPARE(field(differs, "ledger_cents"), QStringLiteral("1000"));
    QCOMPARE(field(differs, "provider_cents"), QStringLiteral("1100"));

    // A refund of an intent paid twice says so, matched or not; each row made after Verity's
    // balance was stated gives its share of the seller's balance difference.
    QCOMPARE(field(matched, "paid_twice"), QStringLiteral("yes"));
    QCOMPARE(field(providerOnly, "paid_twice"), QStringLiteral("yes"));
    QCOMPARE(field(ledgerOnly, "paid_twice"), QStringLiteral("no"));
    QCOMPARE(field(differs, "paid_twice"), QStringLiteral("no"));
    QCOMPARE(field(matched, "balance_difference_cents"), QString()); // before Verity's balance
    QCOMPARE(field(providerOnly, "balance_difference_cents"), QStringLiteral("-11800"));
    QCOMPARE(field(ledgerOnly, "balance_difference_cents"), QString()); // moved nothing at the provider
    QCOMPARE(field(differs, "balance_difference_cents"), QStringLiteral("-1100"));
}

void FinanceReportsTest::duplicatesCsvRoundTrips()
{
    const QString path = m_dir.filePath(QStringLiteral("duplicates.csv"));
    const Expected<void> written = writeDuplicatesCsv(path, duplicates(), marks());
    QVERIFY_OK(written);
    const QList<QStringList> rows = readCsv(path);
    QCOMPARE(rows.size(), 3); // the header and one line per refund
    const QStringList header = rows.first();
    const auto field = [&header](const QStringList &r, const char *name) {
        return r.value(header.indexOf(QLatin1String(name)));
    };
    for (qsizetype i = 1; i < rows.size(); ++i) {
        QCOMPARE(rows.at(i).size(), header.size());
        QCOMPARE(field(rows.at(i), "duplicate_key"), QStringLiteral("intent:ik_,\"1\""));
        QCOMPARE(field(rows.at(i), "seller_name"), awkwardSeller);
        QCOMPARE(field(rows.at(i), "amount_at_risk_cents"), QStringLiteral("11800"));
        QCOMPARE(field(rows.at(i), "amount_at_risk"), formatMoney(11800));
        QCOMPARE(field(rows.at(i), "span_ms"), QStringLiteral("1001"));
        QCOMPARE(field(rows.at(i), "recovery_state"), QStringLiteral("recovery_requested"));
        QCOMPARE(field(rows.at(i), "recovery_note"), marks().first().note);
    }
    QCOMPARE(field(rows.at(1), "refund_id"), QStringLiteral("re_1"));
    QCOMPARE(field(rows.at(1), "verity_effect"), QStringLiteral("performed"));
    QCOMPARE(field(rows.at(2), "refund_id"), QStringLiteral("re_2"));
    QCOMPARE(field(rows.at(2), "verity_effect"), QString()); // Verity never knew of it
    QCOMPARE(field(rows.at(2), "ticket"), QStringLiteral("SU-88421"));
    QCOMPARE(field(rows.at(2), "at"), QStringLiteral("2026-03-17T14:32:09.000Z"));
}

void FinanceReportsTest::pdfHoldsTheReport()
{
    const Reconciliation reconciliation = sample();
    const QString path = m_dir.filePath(QStringLiteral("report.pdf"));
    const Expected<void> written = writeFinancePdf(path, reconciliation, duplicates(), marks());
    QVERIFY_OK(written);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(file.read(4) == "%PDF");
    if (!m_pdftotext)
        QSKIP("pdftotext is not installed (Debian: apt-get install poppler-utils); the PDF's text is not "
              "checked");

    const QString text = pdfText(path);
    QVERIFY2(!text.isEmpty(), "pdftotext read no text from the PDF");
    QVERIFY2(text.contains(QStringLiteral("Verity reconciliation")), qPrintable(text));
    QVERIFY2(text.contains(periodText(reconciliation.period)), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("2026-03-31 18:05 UTC")), qPrintable(text));
    // The totals: one line per category with its count and both totals as formatted money.
    const auto line = [&text](const QString &start) {
        for (const QString &l : text.split(u'\n'))
            if (l.simplified().startsWith(start))
                return l.simplified();
        return QString();
    };
    const auto expectLine = [&](const QString &expected) {
        return line(expected.left(expected.indexOf(u'$'))) == expected;
    };
    for (const QString &expected :
         {QStringLiteral("Matched 1 %1 %1").arg(formatMoney(11800)),
          QStringLiteral("Provider only 1 %1 %2").arg(formatMoney(0), formatMoney(11800)),
          QStringLiteral("Ledger only 1 %1 %2").arg(formatMoney(2550), formatMoney(0)),
          QStringLiteral("Amount differs 1 %1 %2").arg(formatMoney(1000), formatMoney(1100))})
        QVERIFY2(expectLine(expected), qPrintable(expected + QStringLiteral(" in:\n") + text));
    // The seller's line: counts, totals, both balances and what they differ by, explained below.
    const QString seller = line(QStringLiteral("Ashcombe \"Fine\""));
    QVERIFY2(seller.contains(QStringLiteral("1 1 1 1 %1 %2 %3 %4 %5")
                                     .arg(formatMoney(15350), formatMoney(24700), formatMoney(7100),
                                          formatMoney(-6100), formatMoney(-13200))),
             qPrintable(text));
    QVERIFY2(text.simplified().contains(
                     QStringLiteral("Their difference is what moved between those two moments")),
             qPrintable(text));
    // What makes it up: the two refunds made after Verity's balance, each with its share, and
    // the $3.00 no row of the period explains, with why.
    const QString flat = text.simplified();
    QVERIFY2(flat.contains(QStringLiteral("Balance differences (1)")), qPrintable(text));
    QVERIFY2(line(QStringLiteral("Provider only · paid twice SU-88421 / SU-88421/c2, refund re_2"))
                     .endsWith(QStringLiteral(
                             "2026-03-17 14:32 UTC made after Verity's balance was stated -$118.00")),
             qPrintable(text));
    QVERIFY2(line(QStringLiteral("Amount differs SU-88421 / SU-88421/c2, refund re_3"))
                     .endsWith(QStringLiteral(
                             "2026-03-19 09:00 UTC made after Verity's balance was stated -$11.00")),
             qPrintable(text));
    QVERIFY2(line(QStringLiteral(
                          "Not explained by this period's rows the provider's balance was read 2026-04-02 "
                          "09:00 UTC, after the period ends"))
                     .endsWith(QStringLiteral("-$3.00")),
             qPrintable(text));
    // The rows of the intent paid twice say so, the matched one among them.
    QVERIFY2(flat.contains(QStringLiteral("Rows not matched, or paid twice (4)")), qPrintable(text));
    QVERIFY2(line(QStringLiteral("Matched · paid twice SU-88421")).contains(QStringLiteral("re_1")),
             qPrintable(text));
    // The duplicate: its amount at risk, the time between its refunds and its mark.
    QVERIFY2(text.contains(QStringLiteral("1.0 s")), qPrintable(text));
    QVERIFY2(line(QStringLiteral("SU-88421 Ashcombe")).contains(formatMoney(11800)), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Recovery requested by ana")), qPrintable(text));
    // Markup in the data is shown, not obeyed.
    QVERIFY2(text.contains(QStringLiteral("<b>markup</b>")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("& \"quotes\"")), qPrintable(text));
}

void FinanceReportsTest::pdfRunsOverPages()
{
    const QString path = m_dir.filePath(QStringLiteral("long.pdf"));
    const Expected<void> written = writeFinancePdf(path, sample(300), duplicates(), marks());
    QVERIFY_OK(written);
    if (!m_pdftotext)
        QSKIP("pdftotext is not installed (Debian: apt-get install poppler-utils); the pages are not "
              "counted");
    const QString text = pdfText(path);
    QVERIFY2(text.count(u'\f') >= 3, qPrintable(QStringLiteral("%1 pages").arg(text.count(u'\f'))));
    // Nothing is cut at a page's end: the last row and the duplicates after it are there.
    QVERIFY(text.contains(QStringLiteral("bulk row 0")));
    QVERIFY(text.contains(QStringLiteral("bulk row 299")));
    QVERIFY(text.contains(QStringLiteral("Recovery requested by ana")));
}

void FinanceReportsTest::pdfPagesCarryTitleAndPeriod()
{
    const Reconciliation reconciliation = sample(300);
    const QString path = m_dir.filePath(QStringLiteral("pages.pdf"));
    const Expected<void> written = writeFinancePdf(path, reconciliation, duplicates(), marks());
    QVERIFY_OK(written);
    if (!m_pdftotext)
        QSKIP("pdftotext is not installed (Debian: apt-get install poppler-utils); the pages are not read");
    const QStringList pages = pdfPages(path);
    QVERIFY2(pages.size() >= 3, qPrintable(QStringLiteral("%1 pages").arg(pages.size())));
    for (qsizetype i = 0; i < pages.size(); ++i) {
        // Each page read on its own, as a person holding one printed sheet reads it.
        QProcess process;
        const QString number = QString::number(i + 1);
        process.start(QStringLiteral("pdftotext"),
                      {QStringLiteral("-layout"), QStringLiteral("-f"), number, QStringLiteral("-l"), number,
                       path, QStringLiteral("-")});
        QVERIFY(process.waitForFinished(60000) && process.exitCode() == 0);
        const QStringList lines = textLines(QString::fromUtf8(process.readAllStandardOutput()));
        QVERIFY2(!lines.isEmpty(), qPrintable(QStringLiteral("page %1 is empty").arg(number)));
        // The header is the page's first line: the title, the period and which page of how many.
        const QString header = lines.first();
        QVERIFY2(header.contains(QStringLiteral("Verity reconciliation")),
                 qPrintable(number + u' ' + header));
        QVERIFY2(header.contains(periodText(reconciliation.period)), qPrintable(number + u' ' + header));
        QVERIFY2(header.contains(QStringLiteral("page %1 of %2").arg(i + 1).arg(pages.size())),
                 qPrintable(number + u' ' + header));
    }
}

// However many rows push a heading down a page, it never ends one: it moves to the next page
// with the start of its table (the column names and at least one row).
void FinanceReportsTest::pdfKeepsHeadingsWithWhatFollows()
{
    if (!m_pdftotext)
        QSKIP("pdftotext is not installed (Debian: apt-get install poppler-utils); the pages are not read");
    int headingsSeen = 0;
    int pagesSeen = 0;
    // One row more each time moves every later heading down a row: over a page's worth of rows,
    // each heading meets the foot of a page.
    for (int extra = 20; extra <= 60; ++extra) {
        const QString path = m_dir.filePath(QStringLiteral("headings-%1.pdf").arg(extra));
        const Expected<void> written = writeFinancePdf(path, sample(extra), duplicates(), marks());
        QVERIFY_OK(written);
        const QStringList pages = pdfPages(path);
        QVERIFY(pages.size() >= 2);
        for (qsizetype p = 0; p < pages.size(); ++p) {
            const QStringList lines = textLines(pages.at(p));
            ++pagesSeen;
            for (qsizetype l = 0; l < lines.size(); ++l) {
                if (!isHeading(lines.at(l)))
                    continue;
                ++headingsSeen;
                QVERIFY2(l + 2 < lines.size(),
                         qPrintable(QStringLiteral("with %1 extra rows, \"%2\" ends page %3:\n%4")
                                            .arg(extra)
                                            .arg(lines.at(l))
                                            .arg(p + 1)
                                            .arg(lines.mid(qMax(0, int(l) - 3)).join(u'\n'))));
            }
        }
    }
    QCOMPARE(headingsSeen, 41 * 5); // each heading of each report, once
    QVERIFY(pagesSeen > 41);
}

void FinanceReportsTest::pdfKeepsIdsWhole()
{
    const int rows = 40;
    const QString path = m_dir.filePath(QStringLiteral("ids.pdf"));
    const Expected<void> written = writeFinancePdf(path, longIdSample(rows), duplicates(), marks());
    QVERIFY_OK(written);
    if (!m_pdftotext)
        QSKIP("pdftotext is not installed (Debian: apt-get install poppler-utils); the ids are not read");
    const QString text = pdfText(path);
    for (int i = 0; i < rows; ++i) {
        const QStringList ids = longIds(i);
        for (const QString &id : ids)
            QVERIFY2(text.contains(id), qPrintable(id + QStringLiteral(" is not whole in:\n") + text));
    }
}

// A row of two lines is never cut by a page's end: every page that continues the table goes
// on with a row of its own (its category), never with the rest of one from the page before.
void FinanceReportsTest::pdfKeepsRowsWhole()
{
    if (!m_pdftotext)
        QSKIP("pdftotext is not installed (Debian: apt-get install poppler-utils); the pages are not read");
    // A row begins with its category: "Provider only ", "Matched · paid twice ", ...
    static const QRegularExpression rowStart(
            QStringLiteral("^(Matched|Provider only|Ledger only|Amount differs)( · paid twice)? "));
    int continued = 0;
    for (int rows = 30; rows <= 35; ++rows) {
        const QString path = m_dir.filePath(QStringLiteral("rows-%1.pdf").arg(rows));
        const Expected<void> written = writeFinancePdf(path, longIdSample(rows), duplicates(), marks());
        QVERIFY_OK(written);
        const QStringList pages = pdfPages(path);
        for (qsizetype p = 1; p < pages.size(); ++p) {
            const QStringList lines = textLines(pages.at(p));
            for (qsizetype l = 0; l + 1 < lines.size(); ++l) {
                if (!lines.at(l).startsWith(QStringLiteral("Category Ticket / call Refund id")))
                    continue;
                ++continued;
                QVERIFY2(rowStart.match(lines.at(l + 1)).hasMatch(),
                         qPrintable(QStringLiteral("%1 rows, page %2 goes on with \"%3\"")
                                            .arg(rows)
                                            .arg(p + 1)
                                            .arg(lines.at(l + 1))));
            }
        }
    }
    QVERIFY(continued >= 6); // the table ran over a page in every report
}

void FinanceReportsTest::unwritablePathLeavesNothing()
{
    const QString folder = m_dir.filePath(QStringLiteral("no-such-folder"));
    for (const QString &name : {QStringLiteral("a.csv"), QStringLiteral("b.csv"), QStringLiteral("c.pdf")}) {
        const QString path = folder + u'/' + name;
        const Expected<void> written = name == u"a.csv" ? writeReconciliationCsv(path, sample())
                : name == u"b.csv"                      ? writeDuplicatesCsv(path, duplicates(), marks())
                                   : writeFinancePdf(path, sample(), duplicates(), marks());
        QVERIFY2(!written, qPrintable(path));
        QVERIFY2(written.message().contains(path), qPrintable(written.message()));
        QVERIFY(!QFile::exists(path));
    }
    QVERIFY(!QFile::exists(folder));
}

QTEST_MAIN(FinanceReportsTest)
#include "tst_financereports.moc"
