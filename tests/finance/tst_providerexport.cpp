// The provider's CSV export: good files in the shapes Stripe and spreadsheets write, a table
// of bad ones each refused with the file, line and column named, the CSV reader and writer
// on awkward values, and the period's dates.

#include "finance/csvtable.h"
#include "finance/providerexport.h"
#include "support/testmacros.h"
#include "support/time.h"

#include <QDateTime>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;
using verity::test::march2026;
using verity::test::utcMs;

namespace {

const QString fileName = QStringLiteral("export.csv");

// The refunds of the good export, in canonical column order: id, amount, currency, created,
// payment_intent, status, intent_key, ticket_id.
const QList<QStringList> &goodRows()
{
    static const QList<QStringList> rows = {
            {QStringLiteral("re_1"), QStringLiteral("118.00"), QStringLiteral("usd"),
             QStringLiteral("2026-03-17 14:32:07"), QStringLiteral("pi_1"), QStringLiteral("succeeded"),
             QStringLiteral("key-1"), QStringLiteral("T-100")},
            {QStringLiteral("re_2"), QStringLiteral("-47.5"), QStringLiteral("USD"),
             QStringLiteral("2026-03-02T08:00:00Z"), QStringLiteral("pi_2"), QStringLiteral("Pending"),
             QString(), QString()},
            {QStringLiteral("re_3"), QStringLiteral("10.00"), QStringLiteral("USD"),
             QStringLiteral("2026-02-28 23:59:59"), QStringLiteral("pi_3"), QStringLiteral("succeeded"),
             QStringLiteral("key-3"), QStringLiteral("T-3")},
            {QStringLiteral("re_4"), QStringLiteral("5"), QStringLiteral("USD"), QStringLiteral("1774915200"),
             QStringLiteral("pi_4"), QStringLiteral("succeeded"), QStringLiteral("key=4, \"quoted\""),
             QStringLiteral("T-4")},
            {QStringLiteral("re_5"), QStringLiteral("1.00"), QStringLiteral("USD"),
             QStringLiteral("2026-04-01 00:00:00"), QStringLiteral("pi_5"), QStringLiteral("succeeded"),
             QStringLiteral("key-5"), QStringLiteral("T-5")},
    };
    return rows;
}

// The good export written with these header names, in this column order, maybe with a
// description column (commas, quotes and a line break) and a byte-order mark.
QByteArray goodExport(const QStringList &names, const QList<int> &order, const QByteArray &lineEnd, bool bom,
                      bool description)
{
    const auto line = [&](const QStringList &canonical, const QString &extra) {
        QStringList fields;
        for (int column : order)
            fields.append(canonical.at(column));
        if (description)
            fields.append(extra);
        QByteArray text = csvLine(fields);
        text.chop(2);
        return text + lineEnd;
    };
    QByteArray bytes = bom ? QByteArray("\xEF\xBB\xBF") : QByteArray();
    bytes += line(names, QStringLiteral("Description"));
    for (const QStringList &row : goodRows())
        bytes += line(row, QStringLiteral("Refund for %1, \"partial\"\nsee ticket").arg(row.at(4)));
    return bytes;
}

QStringList summary(const QList<StatementRefund> &refunds)
{
    QStringList lines;
    for (const StatementRefund &refund : refunds) {
        lines.append(
                QStringList{refund.id, refund.paymentIntent, QString::number(refund.amountCents),
                            refund.currency, refund.status.text(),
                            QDateTime::fromMSecsSinceEpoch(refund.createdMs, Qt::UTC).toString(Qt::ISODate),
                            refund.intentKey, refund.ticketExtId}
                        .join(u'|'));
    }
    return lines;
}

const QByteArray header = "id,amount,currency,created,payment_intent\n";

} // namespace

class ProviderExportTest : public QObject
{
    Q_OBJECT

private slots:
    void readsAGoodExport_data();
    void readsAGoodExport();
    void recordsWhereEachRefundWasRead();
    void readsAFile();
    void refusesABadExport_data();
    void refusesABadExport();
    void csvRoundTrip_data();
    void csvRoundTrip();
    void csvWritesRfc4180();
    void csvRecordsStartOnTheirLine();
    void periodFromDates_data();
    void periodFromDates();
};

void ProviderExportTest::readsAGoodExport_data()
{
    QTest::addColumn<QByteArray>("bytes");
    const QStringList canonical{
            QStringLiteral("id"),         QStringLiteral("amount"),         QStringLiteral("currency"),
            QStringLiteral("created"),    QStringLiteral("payment_intent"), QStringLiteral("status"),
            QStringLiteral("intent_key"), QStringLiteral("ticket_id")};
    const QList<int> inOrder{0, 1, 2, 3, 4, 5, 6, 7};
    QTest::newRow("plain") << goodExport(canonical, inOrder, "\n", false, false);
    QTest::newRow("BOM and CRLF") << goodExport(canonical, inOrder, "\r\n", true, false);
    QTest::newRow("other order, other case") << goodExport(
            {QStringLiteral("ID"), QStringLiteral("Amount"), QStringLiteral("CURRENCY"),
             QStringLiteral("Created"), QStringLiteral("Payment_Intent"), QStringLiteral("Status"),
             QStringLiteral("Intent_Key"), QStringLiteral("TICKET_ID")},
            {7, 3, 0, 5, 2, 6, 1, 4}, "\r\n", false, false);
    QTest::newRow("Stripe's names, a quoted description") << goodExport(
            {QStringLiteral("id"), QStringLiteral("Amount"), QStringLiteral("Currency"),
             QStringLiteral("Created (UTC)"), QStringLiteral("Payment Intent"), QStringLiteral("Status"),
             QStringLiteral("metadata[intent_key]"), QStringLiteral("ticket_id (metadata)")},
            inOrder, "\r\n", true, true);
    QTest::newRow("spaced names, LF, description") << goodExport(
            {QStringLiteral(" id "), QStringLiteral("amount"), QStringLiteral("currency"),
             QStringLiteral("created"), QStringLiteral("payment  intent"), QStringLiteral("status"),
             QStringLiteral("intent_key (metadata)"), QStringLiteral("metadata[ticket_id]")},
            {4, 3, 2, 1, 0, 7, 6, 5}, "\n", false, true);
}

void ProviderExportTest::readsAGoodExport()
{
    QFETCH(QByteArray, bytes);
    const Expected<ProviderStatement> statement = parseProviderExport(bytes, fileName, march2026());
    QVERIFY_OK(statement);
    // re_3 (February) and re_5 (April 1st, after the period) are left out; oldest first.
    QCOMPARE(
            summary(statement->refunds),
            (QStringList{QStringLiteral("re_2|pi_2|4750|USD|pending|2026-03-02T08:00:00Z||"),
                         QStringLiteral("re_1|pi_1|11800|USD|succeeded|2026-03-17T14:32:07Z|key-1|T-100"),
                         QStringLiteral(
                                 "re_4|pi_4|500|USD|succeeded|2026-03-31T00:00:00Z|key=4, \"quoted\"|T-4")}));
    QCOMPARE(statement->source, fileName);
    QVERIFY(statement->accounts.isEmpty());
    QCOMPARE(statement->period.fromMs, march2026().fromMs);
}

void ProviderExportTest::recordsWhereEachRefundWasRead()
{
    const QByteArray bytes = "\xEF\xBB\xBFid,amount,currency,created,payment_intent,note,account\r\n"
                             "re_a,1.00,USD,2026-03-05 10:00,pi_a,\"two\r\nlines\",acct_1\r\n"
                             "re_b,2.00,USD,2026-03-05T10:00:00.250+02:00,pi_b,,\r\n";
    const Expected<ProviderStatement> statement = parseProviderExport(bytes, fileName, march2026());
    QVERIFY_OK(statement);
    QCOMPARE(statement->refunds.size(), 2);
    // re_b is at 08:00:00.250 UTC, before re_a.
    const StatementRefund &b = statement->refunds.at(0);
    const StatementRefund &a = statement->refunds.at(1);
    QCOMPARE(b.id, QStringLiteral("re_b"));
    QCOMPARE(b.createdMs, utcMs(2026, 3, 5, 8, 0, 0, 250));
    QCOMPARE(b.origin, QStringLiteral("export.csv:4"));
    QCOMPARE(b.record, QStringLiteral("re_b,2.00,USD,2026-03-05T10:00:00.250+02:00,pi_b,,"));
    QCOMPARE(b.status, QString());
    QCOMPARE(a.createdMs, utcMs(2026, 3, 5, 10));
    QCOMPARE(a.origin, QStringLiteral("export.csv:2"));
    QCOMPARE(a.record, QStringLiteral("re_a,1.00,USD,2026-03-05 10:00,pi_a,\"two\r\nlines\",acct_1"));
    QCOMPARE(a.account, QStringLiteral("acct_1"));
}

void ProviderExportTest::readsAFile()
{
    QTemporaryDir folder;
    const QString path = folder.filePath(QStringLiteral("stripe-refunds.csv"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(header
               + "re_1,1.00,USD,2026-03-05 10:00:00,pi_1\nre_2,1.0,USD,2026-03-05 10:00:00,pi_2,extra\n");
    file.close();
    const Expected<ProviderStatement> bad = readProviderExport(path, march2026());
    QVERIFY(!bad.ok());
    QCOMPARE(bad.message(),
             QStringLiteral("stripe-refunds.csv:3: field 6 has no column; the line has 6 fields where the "
                            "header has 5"));

    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(header + "re_1,1.00,EUR,2026-03-05 10:00:00,pi_1\n");
    file.close();
    const Expected<ProviderStatement> euro = readProviderExport(path, march2026(), QStringLiteral("EUR"));
    QVERIFY_OK(euro);
    QCOMPARE(euro->source, path);
    QCOMPARE(euro->refunds.at(0).origin, QStringLiteral("stripe-refunds.csv:2"));

    const Expected<ProviderStatement> missing =
            readProviderExport(folder.filePath(QStringLiteral("none.csv")), march2026());
    QVERIFY(!missing.ok());
    QVERIFY(missing.message().startsWith(folder.filePath(QStringLiteral("none.csv"))
                                         + QStringLiteral(": cannot read")));
}

void ProviderExportTest::refusesABadExport_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("error");
    const QString notAnAmount =
            QStringLiteral("is not an amount; expected a decimal with at most two decimals, such as 118.00");
    // One line of the five required columns.
    const auto row = [](const char *id, const char *amount = "1.00", const char *currency = "USD") {
        return QByteArray(id) + ',' + amount + ',' + currency + ",2026-03-05 10:00:00,pi_" + id + '\n';
    };
    const QByteArray good = row("re_0");

    QTest::newRow("empty file") << QByteArray() << QStringLiteral("export.csv: empty file");
    QTest::newRow("only a BOM and blank lines")
            << QByteArray("\xEF\xBB\xBF\r\n\r\n") << QStringLiteral("export.csv: empty file");
    QTest::newRow("missing currency")
            << QByteArray("id,amount,created,payment_intent\nre_1,1.00,2026-03-05 10:00:00,pi_1\n")
            << QStringLiteral("export.csv:1: missing column \"currency\"; the header has: id, amount, "
                              "created, payment_intent");
    QTest::newRow("missing three")
            << QByteArray("Id,Amount\n")
            << QStringLiteral(
                       "export.csv:1: missing columns \"currency\", \"created\" (or \"Created (UTC)\"), "
                       "\"payment_intent\" (or \"Payment Intent\"); the header has: Id, Amount");
    QTest::newRow("a column twice") << QByteArray(
            "id,amount,currency,created,payment_intent,intent_key,metadata[intent_key]\n")
                                    << QStringLiteral("export.csv:1: columns \"intent_key\" and "
                                                      "\"metadata[intent_key]\" both give intent_key; keep "
                                                      "one of them");
    QTest::newRow("three decimals") << header + good + "re_1,12.345,USD,2026-03-05 10:00:00,pi_1\n"
                                    << QStringLiteral("export.csv:3: column \"amount\": \"12.345\" ")
                    + notAnAmount;
    QTest::newRow("letters") << header + "re_1,abc,USD,2026-03-05 10:00:00,pi_1\n"
                             << QStringLiteral("export.csv:2: column \"amount\": \"abc\" ") + notAnAmount;
    QTest::newRow("no amount") << header + good + row("re_9", "")
                               << QStringLiteral("export.csv:3: column \"amount\": \"\" ") + notAnAmount;
    QTest::newRow("thousands separator") << QByteArray(
            "Amount,id,currency,created,payment_intent\n\"1,250.00\",re_1,USD,2026-03-05 10:00:00,pi_1\n")
                                         << QStringLiteral("export.csv:2: column \"Amount\": \"1,250.00\" ")
                    + notAnAmount;
    QTest::newRow("another currency")
            << header + row("re_1") + row("re_2") + row("re_3") + row("re_4") + row("re_5") + row("re_6")
                    + row("re_7") + row("re_8", "118.00", "EUR")
            << QStringLiteral("export.csv:9: column \"currency\": \"EUR\", but the ledger is "
                              "in USD");
    QTest::newRow("not a currency")
            << header + "re_1,1.00,dollars,2026-03-05 10:00:00,pi_1\n"
            << QStringLiteral("export.csv:2: column \"currency\": \"dollars\" is not a currency; "
                              "expected three letters, such as USD");
    QTest::newRow("day-first date")
            << header + "re_1,1.00,USD,17/03/2026,pi_1\n"
            << QStringLiteral("export.csv:2: column \"created\": \"17/03/2026\" is not a time; "
                              "expected UTC such as 2026-03-17 14:32:07 or 2026-03-17T14:32:07Z, "
                              "or unix seconds (10 digits)");
    QTest::newRow("a date without dashes")
            << header + "re_1,1.00,USD,20260317,pi_1\n"
            << QStringLiteral("export.csv:2: column \"created\": \"20260317\" is not a time; "
                              "expected UTC such as 2026-03-17 14:32:07 or 2026-03-17T14:32:07Z, "
                              "or unix seconds (10 digits)");
    QTest::newRow("no such day")
            << QByteArray("id,amount,currency,Created (UTC),payment_intent\n"
                          "re_1,1.00,USD,2026-02-30 10:00:00,pi_1\n")
            << QStringLiteral("export.csv:2: column \"Created (UTC)\": \"2026-02-30 10:00:00\" is not "
                              "a time; expected UTC such as 2026-03-17 14:32:07 or "
                              "2026-03-17T14:32:07Z, or unix seconds (10 digits)");
    QTest::newRow("duplicate id")
            << header + good + row("re_1") + good
            << QStringLiteral("export.csv:4: column \"id\": \"re_0\" is listed twice (first on line 2)");
    QTest::newRow("no id") << header + " ,1.00,USD,2026-03-05 10:00:00,pi_1\n"
                           << QStringLiteral(
                                      "export.csv:2: column \"id\": empty; expected the refund's id, such as "
                                      "re_3MtwBwLkdIwHu7ix28a3tqPa");
    QTest::newRow("short line")
            << header + "re_1,1.00,USD,2026-03-05 10:00:00\n"
            << QStringLiteral("export.csv:2: column \"payment_intent\": missing; the line has 4 fields "
                              "where the header has 5");
    QTest::newRow("unterminated quote")
            << header + good + "re_1,\"1.00,USD,2026-03-05 10:00:00,pi_1\n" + good
            << QStringLiteral("export.csv:3: column \"amount\" opens a quote that never closes; "
                              "expected a closing '\"' (a quote inside a quoted field is "
                              "written '\"\"')");
    QTest::newRow("text after a closing quote")
            << header + "re_1,\"1.00\"x,USD,2026-03-05 10:00:00,pi_1\n"
            << QStringLiteral("export.csv:2: column \"amount\": found \"x\" after its closing "
                              "quote; expected a comma or the end of the line");
    // Lines are the file's: a quoted line break moves the next record down.
    QTest::newRow("after a quoted line break")
            << QByteArray("id,amount,currency,created,payment_intent,note\r\n"
                          "re_1,1.00,USD,2026-03-05 10:00:00,pi_1,\"a\r\nb\r\nc\"\r\n"
                          "re_2,1.001,USD,2026-03-05 10:00:00,pi_2,\r\n")
            << QStringLiteral("export.csv:5: column \"amount\": \"1.001\" ") + notAnAmount;
    // A bad line outside the period still refuses the file: all or nothing.
    QTest::newRow("bad line outside the period")
            << header + good + "re_1,1.0.0,USD,2025-01-01 00:00:00,pi_1\n"
            << QStringLiteral("export.csv:3: column \"amount\": \"1.0.0\" ") + notAnAmount;
    QTest::newRow("not UTF-8") << header + good + "re_1,1.00,USD,2026-03-05 10:00:00,pi_\xff\n"
                               << QStringLiteral(
                                          "export.csv:3: the text is not UTF-8; save the file as UTF-8");
    QTest::newRow("a character cut off at the end of a line")
            << header + good + "re_1,1.00,USD,2026-03-05 10:00:00,pi_\xe2\x82\n" + good
            << QStringLiteral("export.csv:3: the text is not UTF-8; save the file as UTF-8");
    QTest::newRow("a character cut off at the end of the file")
            << header + good + "re_1,1.00,USD,2026-03-05 10:00:00,pi_\xe2\x82"
            << QStringLiteral("export.csv:3: the text is not UTF-8; save the file as UTF-8");
}

void ProviderExportTest::refusesABadExport()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, error);
    const Expected<ProviderStatement> statement = parseProviderExport(bytes, fileName, march2026());
    QVERIFY(!statement.ok());
    QCOMPARE(statement.message(), error);
}

void ProviderExportTest::csvRoundTrip_data()
{
    QTest::addColumn<QStringList>("written");
    QTest::addColumn<QStringList>("read");
    const QStringList plain{QStringLiteral("a"), QString(), QStringLiteral(" spaced "),
                            QStringLiteral("ünïcødé €")};
    QTest::newRow("plain") << plain << plain;
    const QStringList awkward{QStringLiteral("a,b"),        QStringLiteral("say \"hi\""),
                              QStringLiteral("two\nlines"), QStringLiteral("crlf\r\ninside"),
                              QStringLiteral("\""),         QStringLiteral(",")};
    QTest::newRow("quoted") << awkward << awkward;
    QTest::newRow("numbers stay numbers") << QStringList{QStringLiteral("-118.00"), QStringLiteral("-1"),
                                                         QStringLiteral("-"), QStringLiteral("118.00")}
                                          << QStringList{QStringLiteral("-118.00"), QStringLiteral("-1"),
                                                         QStringLiteral("-"), QStringLiteral("118.00")};
    QTest::newRow("formulas are defused") << QStringList{QStringLiteral("=SUM(A1:A9)"),
                                                         QStringLiteral("+1"),
                                                         QStringLiteral("@cmd"),
                                                         QStringLiteral("-x"),
                                                         QStringLiteral("=HYPERLINK(\"http://x\",\"y\")"),
                                                         QStringLiteral("a=b")}
                                          << QStringList{QStringLiteral("'=SUM(A1:A9)"),
                                                         QStringLiteral("'+1"),
                                                         QStringLiteral("'@cmd"),
                                                         QStringLiteral("'-x"),
                                                         QStringLiteral("'=HYPERLINK(\"http://x\",\"y\")"),
                                                         QStringLiteral("a=b")};
}

void ProviderExportTest::csvRoundTrip()
{
    QFETCH(QStringList, written);
    QFETCH(QStringList, read);
    const QByteArray bytes = csvLine(written) + csvLine(written);
    const Expected<QList<CsvRecord>> records = parseCsv(bytes, fileName);
    QVERIFY_OK(records);
    QCOMPARE(records->size(), 2);
    QCOMPARE(records->at(0).fields, read);
    QCOMPARE(records->at(1).fields, read);
}

void ProviderExportTest::csvWritesRfc4180()
{
    QCOMPARE(csvLine({QStringLiteral("a"), QStringLiteral("b,c"), QStringLiteral("d\"e"), QString()}),
             QByteArray("a,\"b,c\",\"d\"\"e\",\r\n"));
    QCOMPARE(csvField(QStringLiteral("=1+1")), QStringLiteral("'=1+1"));
    QCOMPARE(csvField(QStringLiteral("-=1,2")), QStringLiteral("\"'-=1,2\""));
    QCOMPARE(csvField(QStringLiteral("-47.00")), QStringLiteral("-47.00"));
    QCOMPARE(csvField(QStringLiteral("-$1,047.00")), QStringLiteral("\"-$1,047.00\""));
    QCOMPARE(csvField(QStringLiteral("-1+A1")), QStringLiteral("'-1+A1"));
    QCOMPARE(csvField(QStringLiteral("line\nbreak")), QStringLiteral("\"line\nbreak\""));
}

void ProviderExportTest::csvRecordsStartOnTheirLine()
{
    const Expected<QList<CsvRecord>> records = parseCsv("\xEF\xBB\xBF"
                                                        "a,b\r\n\r\n\"x\ny\",z\n\"\"\nlast,",
                                                        fileName);
    QVERIFY_OK(records);
    QCOMPARE(records->size(), 4);
    QCOMPARE(records->at(0).line, 1);
    QCOMPARE(records->at(0).fields, (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
    QCOMPARE(records->at(1).line, 3); // the blank line 2 is no record
    QCOMPARE(records->at(1).fields, (QStringList{QStringLiteral("x\ny"), QStringLiteral("z")}));
    QCOMPARE(records->at(1).text, QStringLiteral("\"x\ny\",z"));
    QCOMPARE(records->at(2).line, 5);
    QCOMPARE(records->at(2).fields, QStringList{QString()}); // a quoted empty field is a record
    QCOMPARE(records->at(3).line, 6);
    QCOMPARE(records->at(3).fields, (QStringList{QStringLiteral("last"), QString()}));
}

void ProviderExportTest::periodFromDates_data()
{
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("start"); // ISO, or empty when refused
    QTest::addColumn<QString>("end");
    QTest::addColumn<QString>("error");
    QTest::newRow("March") << QStringLiteral("2026-03-01") << QStringLiteral("2026-03-31")
                           << QStringLiteral("2026-03-01T00:00:00Z") << QStringLiteral("2026-04-01T00:00:00Z")
                           << QString();
    QTest::newRow("one day") << QStringLiteral("2026-03-17") << QStringLiteral("2026-03-17")
                             << QStringLiteral("2026-03-17T00:00:00Z")
                             << QStringLiteral("2026-03-18T00:00:00Z") << QString();
    QTest::newRow("over a leap day") << QStringLiteral("2028-02-28") << QStringLiteral("2028-02-29")
                                     << QStringLiteral("2028-02-28T00:00:00Z")
                                     << QStringLiteral("2028-03-01T00:00:00Z") << QString();
    QTest::newRow("from unpadded")
            << QStringLiteral("2026-3-1") << QStringLiteral("2026-03-31") << QString() << QString()
            << QStringLiteral("from: \"2026-3-1\" is not a date; expected YYYY-MM-DD, such as "
                              "2026-03-01");
    QTest::newRow("to no such day")
            << QStringLiteral("2026-02-01") << QStringLiteral("2026-02-30") << QString() << QString()
            << QStringLiteral("to: \"2026-02-30\" is not a date; expected YYYY-MM-DD, such as "
                              "2026-03-31");
    QTest::newRow("to with a time")
            << QStringLiteral("2026-03-01") << QStringLiteral("2026-03-31T00:00:00") << QString() << QString()
            << QStringLiteral("to: \"2026-03-31T00:00:00\" is not a date; expected YYYY-MM-DD, "
                              "such as 2026-03-31");
    QTest::newRow("from empty")
            << QString() << QStringLiteral("2026-03-31") << QString() << QString()
            << QStringLiteral("from: \"\" is not a date; expected YYYY-MM-DD, such as 2026-03-01");
    QTest::newRow("backwards") << QStringLiteral("2026-03-31") << QStringLiteral("2026-03-01") << QString()
                               << QString()
                               << QStringLiteral(
                                          "to: 2026-03-01 is before from (2026-03-31); the period ends on or "
                                          "after the day it starts");
}

void ProviderExportTest::periodFromDates()
{
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, start);
    QFETCH(QString, end);
    QFETCH(QString, error);
    const Expected<Period> period = verity::periodFromDates(from, to);
    if (start.isEmpty()) {
        QVERIFY(!period);
        QCOMPARE(period.message(), error);
        QCOMPARE(period.code(), std::error_code(InputErrc::Invalid));
        return;
    }
    QVERIFY2(period, qPrintable(period ? QString() : period.message()));
    QCOMPARE(period->fromMs, utcMs(start));
    QCOMPARE(period->toMs, utcMs(end));
    QCOMPARE(periodText(*period), from + QStringLiteral(" to ") + to + QStringLiteral(" (UTC)"));
    QVERIFY(period->contains(period->toMs - 1));
    QVERIFY(!period->contains(period->toMs));
}

QTEST_GUILESS_MAIN(ProviderExportTest)
#include "tst_providerexport.moc"
