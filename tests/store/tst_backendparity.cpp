// The same data in both backends reads back the same through every room: the demo and the
// real transcripts of tests/data are imported into an SQLite file and into a PostgreSQL
// database of a cluster this test starts, a few escalations are settled alike in both, and
// then every page, sort, filter and search of the queue, every ticket, every escalation and
// every finance, trace and audit read is compared. The contract suite says what a backend must
// do; this says the second one does it on real data, query for query.

#include "domain/registrychoice.h"
#include "import/importjob.h"
#include "import/transcriptimporter.h"
#include "store/reassessment.h"
#include "store/storefactory.h"
#include "support/postgrescluster.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace verity;

namespace {

template<typename T>
T valueOf(Expected<T> expected, const char *what)
{
    if (!expected)
        qFatal("%s failed: %s", what, qPrintable(expected.message()));
    return std::move(*expected);
}

QStringList transcriptFiles()
{
    QStringList files{demoDataResource()};
    for (const char *folder : {"/tau", "/formats"}) {
        const QDir dir(QStringLiteral(VERITY_TEST_DATA) + QLatin1String(folder));
        for (const QString &name :
             dir.entryList({QStringLiteral("*.json"), QStringLiteral("*.jsonl")}, QDir::Files, QDir::Name))
            files << dir.filePath(name);
    }
    return files;
}

// Rows are compared without their surrogate ids, which are each backend's own: PostgreSQL's
// sequences skip the values an upsert drew and did not use. What a person knows a row by (a
// ticket's and a call's names) is compared, and whether an id is there at all.
std::optional<qint64> present(const std::optional<qint64> &id)
{
    return id ? std::optional<qint64>(1) : std::nullopt;
}
TranscriptEntry plain(TranscriptEntry e)
{
    e.call.id = 0;
    e.call.escalationId = present(e.call.escalationId);
    return e;
}
EscalationRow plain(EscalationRow e)
{
    e.id = e.callId = 0;
    return e;
}
EscalationDetail plain(EscalationDetail e)
{
    e.id = e.callId = 0;
    return e;
}
Evidence plain(Evidence e)
{
    e.id = e.escalationId = 0;
    return e;
}
IntentCall plain(IntentCall c)
{
    c.id = 0;
    c.escalationId = present(c.escalationId);
    return c;
}
EscalationSettlement plain(EscalationSettlement s)
{
    s.escalationId = s.callId = 0;
    return s;
}
LedgerEntry plain(LedgerEntry l)
{
    l.toolCallId = present(l.toolCallId);
    return l;
}
LedgerPayout plain(LedgerPayout p)
{
    p.callId = 0;
    return p;
}
SellerHistory plain(SellerHistory h)
{
    for (LedgerPayout &debit : h.debits)
        debit = plain(debit);
    return h;
}
StoredCall plain(StoredCall c)
{
    c.id = 0;
    return c;
}
std::optional<EscalationDetail> plain(std::optional<EscalationDetail> e)
{
    return e ? std::optional<EscalationDetail>(plain(*e)) : std::nullopt;
}
template<typename T>
QList<T> plain(QList<T> list)
{
    for (T &each : list)
        each = plain(each);
    return list;
}

// The first field two records differ in, by name, for a failure that says where.
#define PARITY_FIELD(field)                                                                                  \
    do {                                                                                                     \
        if (!(a.field == b.field))                                                                           \
            return QStringLiteral(#field);                                                                   \
    } while (false)
QString firstDifference(const ToolCallRow &a, const ToolCallRow &b)
{
    PARITY_FIELD(id);
    PARITY_FIELD(callExtId);
    PARITY_FIELD(tool);
    PARITY_FIELD(toolClass);
    PARITY_FIELD(classInferred);
    PARITY_FIELD(argumentsJson);
    PARITY_FIELD(calledAt);
    PARITY_FIELD(hasResult);
    PARITY_FIELD(rawResult);
    PARITY_FIELD(resultAt);
    PARITY_FIELD(durationMs);
    PARITY_FIELD(intentKey);
    PARITY_FIELD(intentError);
    PARITY_FIELD(outcome);
    PARITY_FIELD(outcomeReason);
    PARITY_FIELD(repeated);
    PARITY_FIELD(repeatedWith);
    PARITY_FIELD(repeatKind);
    PARITY_FIELD(repeatOfCallId);
    PARITY_FIELD(resultError);
    PARITY_FIELD(resultErrorType);
    PARITY_FIELD(amountCents);
    PARITY_FIELD(amountError);
    PARITY_FIELD(escalationState);
    PARITY_FIELD(resolution);
    PARITY_FIELD(settlementBasis);
    PARITY_FIELD(settledReference);
    PARITY_FIELD(resolvedAt);
    PARITY_FIELD(escalationNote);
    PARITY_FIELD(argumentsClippedBytes);
    PARITY_FIELD(resultClippedBytes);
    return QString();
}
QString firstDifference(const TranscriptEntry &a, const TranscriptEntry &b)
{
    PARITY_FIELD(seq);
    PARITY_FIELD(at);
    PARITY_FIELD(isToolCall);
    PARITY_FIELD(kind);
    PARITY_FIELD(text);
    PARITY_FIELD(clippedBytes);
    return QStringLiteral("call.") + firstDifference(a.call, b.call);
}
QString firstDifference(const EscalationRow &a, const EscalationRow &b)
{
    PARITY_FIELD(id);
    PARITY_FIELD(ticketId);
    PARITY_FIELD(ticketExtId);
    PARITY_FIELD(callId);
    PARITY_FIELD(callExtId);
    PARITY_FIELD(tool);
    PARITY_FIELD(openedAt);
    PARITY_FIELD(amountCents);
    PARITY_FIELD(currency);
    PARITY_FIELD(state);
    return QString();
}
#undef PARITY_FIELD

template<typename T>
void compareLists(const QList<T> &actual, const QList<T> &expected, const QString &what)
{
    QCOMPARE(actual.size(), expected.size());
    for (qsizetype i = 0; i < expected.size(); ++i)
        QVERIFY2(actual.at(i) == expected.at(i),
                 qPrintable(QStringLiteral("%1, item %2: %3 differs")
                                    .arg(what)
                                    .arg(i)
                                    .arg(firstDifference(actual.at(i), expected.at(i)))));
}

QStringList extIds(const QList<TicketRow> &rows)
{
    QStringList ids;
    for (const TicketRow &row : rows)
        ids << row.extId;
    return ids;
}

} // namespace

class BackendParity : public QObject
{
    Q_OBJECT

    QTemporaryDir m_folder;
    test::PostgresCluster m_cluster;
    std::unique_ptr<Store> m_sqlite;
    std::unique_ptr<Store> m_postgres;
    QList<EscalationRow> m_settled; // the escalations settled in each
    QList<EscalationRow> m_settledThere;

    // A settlement, its evidence and ledger row, made alike in both stores.
    static void settle(Store &store, qint64 escalationId, Resolution resolution, const QString &reference)
    {
        const EscalationDetail detail = *valueOf(store.escalation(escalationId), "reading an escalation");
        Evidence evidence;
        evidence.escalationId = escalationId;
        evidence.operatorName = QStringLiteral("ana");
        evidence.startedAt = 1'800'000'000'000;
        evidence.finishedAt = 1'800'000'000'500;
        evidence.verdict =
                resolution == Resolution::NotPerformed ? LookupVerdict::NotFound : LookupVerdict::Found;
        evidence.request = QStringLiteral("GET /v1/refunds?payment_intent=pi_1");
        evidence.response = QStringLiteral("{\"data\":[]}");
        evidence.recordId = reference;
        evidence.evidenceSha256 = QString(64, u'a');
        QVERIFY(store.begin());
        valueOf(store.recordEvidence(evidence), "recording evidence");
        const Settlement settlement{
                escalationId,          resolution,       SettlementBasis::Lookup, reference,
                QStringLiteral("ana"), 1'800'000'001'000};
        QVERIFY(valueOf(store.resolveEscalation(settlement), "settling").claimed);
        if (resolution == Resolution::Performed) {
            LedgerEntry entry;
            entry.intentKey = detail.intentKey;
            entry.toolCallId = detail.callId;
            entry.refundId = reference;
            entry.amountCents = detail.amountCents.value_or(0);
            entry.currency = detail.currency;
            entry.recordedAt = 1'800'000'001'000;
            entry.source = QStringLiteral("lookup");
            QVERIFY(valueOf(store.recordLedgerEntry(entry), "recording a refund"));
        }
        valueOf(reassessTicket(store, detail.ticketId), "reassessing");
        QVERIFY(store.commit());
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.error()));
        const QString location = m_cluster.createDatabase(QStringLiteral("parity"));
        QVERIFY2(!location.isEmpty(), qPrintable(m_cluster.error()));
        m_postgres = valueOf(openStore(location), "opening PostgreSQL");
        m_sqlite = valueOf(openStore(m_folder.filePath(QStringLiteral("parity.sqlite"))), "opening SQLite");
        // A tool no profile knows, given to the model with a definition that says it refunds:
        // its calls are judged as money writes, marked inferred, in both.
        const QString unknownTool = m_folder.filePath(QStringLiteral("unknown-tool.jsonl"));
        QFile unknown(unknownTool);
        QVERIFY(unknown.open(QIODevice::WriteOnly));
        const auto call = [](const char *id) {
            return QJsonObject{
                    {QStringLiteral("role"), QStringLiteral("assistant")},
                    {QStringLiteral("tool_calls"),
                     QJsonArray{QJsonObject{
                             {QStringLiteral("id"), QLatin1String(id)},
                             {QStringLiteral("type"), QStringLiteral("function")},
                             {QStringLiteral("function"),
                              QJsonObject{
                                      {QStringLiteral("name"), QStringLiteral("make_it_right")},
                                      {QStringLiteral("arguments"),
                                       QStringLiteral("{\"order_id\":\"SU-9\",\"amount_cents\":700}")}}}}}}};
        };
        const auto answer = [](const char *id) {
            return QJsonObject{{QStringLiteral("role"), QStringLiteral("tool")},
                               {QStringLiteral("tool_call_id"), QLatin1String(id)},
                               {QStringLiteral("content"), QStringLiteral("{\"status\":\"ok\"}")}};
        };
        const QJsonObject definition{
                {QStringLiteral("type"), QStringLiteral("function")},
                {QStringLiteral("function"),
                 QJsonObject{{QStringLiteral("name"), QStringLiteral("make_it_right")},
                             {QStringLiteral("description"), QStringLiteral("Refund the customer.")}}}};
        const QJsonObject conversation{
                {QStringLiteral("id"), QStringLiteral("parity-unknown-tool")},
                {QStringLiteral("tools"), QJsonArray{definition}},
                {QStringLiteral("messages"),
                 QJsonArray{QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                                        {QStringLiteral("content"), QStringLiteral("Refund me")}},
                            call("m1"), answer("m1"), call("m2"), answer("m2")}}};
        unknown.write(QJsonDocument(conversation).toJson(QJsonDocument::Compact) + '\n');
        unknown.close();
        QStringList files = transcriptFiles();
        files << unknownTool;
        for (const QString &file : std::as_const(files)) {
            for (Store *store : {m_sqlite.get(), m_postgres.get()}) {
                // The built-in profiles, chosen per file, as `verity import` does.
                TranscriptImporter importer(*store, automaticRegistries(QString()));
                const ImportReport report = importer.importFile(file);
                QVERIFY2(report.fatal.isEmpty(), qPrintable(file + QStringLiteral(": ") + report.fatal));
            }
        }
        // Two escalations settled, the same ones in both, with a duplicate payout marked.
        for (Store *store : {m_sqlite.get(), m_postgres.get()}) {
            const QList<EscalationRow> open = valueOf(store->openEscalations(0, 10), "reading the queue");
            QVERIFY2(open.size() >= 2, "the data has fewer than two unknown writes");
            (store == m_sqlite.get() ? m_settled : m_settledThere) = open.mid(0, 2);
            settle(*store, open.at(0).id, Resolution::Performed, QStringLiteral("re_parity_1"));
            settle(*store, open.at(1).id, Resolution::NotPerformed, QString());
            QVERIFY(store->begin());
            valueOf(store->insertPayoutMark(
                            PayoutMark{0, QStringLiteral("dup-1"), RecoveryState::RecoveryRequested,
                                       QStringLiteral("asked"), QStringLiteral("fin"), 1'800'000'002'000}),
                    "marking a payout");
            QVERIFY(store->commit());
        }
    }

    void queuePages_data()
    {
        QTest::addColumn<int>("filter");
        QTest::addColumn<int>("sortKey");
        QTest::addColumn<bool>("descending");
        QTest::addColumn<QString>("search");
        const QStringList searches{QString(),
                                   QStringLiteral("t"),
                                   QStringLiteral("O-"),
                                   QStringLiteral("o-"), // a search ignores case on both
                                   QStringLiteral("acme"),
                                   QStringLiteral("ACME"),
                                   QStringLiteral("retail"),
                                   QStringLiteral("x_%"),
                                   QStringLiteral("\"1\""), // a value whole: a task, with its trials
                                   QStringLiteral("\"Acme\"")};
        for (int filter = 0; filter <= int(TicketFilter::RetryAfterError); ++filter) {
            for (int key = 0; key <= int(TicketSortKey::WorstOutcome); ++key) {
                for (bool descending : {false, true}) {
                    for (const QString &search : searches)
                        QTest::addRow("f%d-k%d-%s-%s", filter, key, descending ? "desc" : "asc",
                                      qPrintable(search))
                                << filter << key << descending << search;
                }
            }
        }
    }

    void queuePages()
    {
        QFETCH(int, filter);
        QFETCH(int, sortKey);
        QFETCH(bool, descending);
        QFETCH(QString, search);
        const TicketQuery query{TicketFilter(filter), search, TicketSortKey(sortKey), descending};
        const qint64 count = valueOf(m_sqlite->countTickets(query), "counting");
        QCOMPARE(valueOf(m_postgres->countTickets(query), "counting"), count);
        const QList<TicketRow> all = valueOf(m_sqlite->tickets(query, 0, 1000), "reading a page");
        QCOMPARE(extIds(valueOf(m_postgres->tickets(query, 0, 1000), "reading a page")), extIds(all));
        QCOMPARE(valueOf(m_postgres->tickets(query, 0, 1000), "reading a page"), all);
        if (all.size() < 4 || !anchorsOrder(TicketSortKey(sortKey)))
            return;
        // Entered at an anchor, forwards and backwards, as the console pages.
        const TicketRow &middle = all.at(all.size() / 2);
        const TicketAnchor anchor{ticketSortValue(middle, TicketSortKey(sortKey)), middle.id};
        for (bool backwards : {false, true}) {
            const TicketPage page{anchor, backwards, 1, 3};
            QCOMPARE(extIds(valueOf(m_postgres->ticketPage(query, page), "reading an anchored page")),
                     extIds(valueOf(m_sqlite->ticketPage(query, page), "reading an anchored page")));
        }
    }

    void everyTicketReadsAlike()
    {
        const QList<TicketRow> rows = valueOf(m_sqlite->tickets(TicketQuery{}, 0, 1000), "reading the queue");
        QVERIFY(rows.size() > 10);
        for (const TicketRow &row : rows) {
            const qint64 id = valueOf(m_postgres->ticketIdByExtId(row.extId), "finding a ticket").value_or(0);
            QCOMPARE(id, row.id);
            QCOMPARE(valueOf(m_postgres->ticket(id), "reading a ticket"),
                     valueOf(m_sqlite->ticket(id), "reading a ticket"));
            for (qsizetype clip : {qsizetype(0), qsizetype(40)}) {
                const QList<TranscriptEntry> expected =
                        valueOf(m_sqlite->transcript(id, clip), "reading a transcript");
                const QList<TranscriptEntry> actual =
                        valueOf(m_postgres->transcript(id, clip), "reading a transcript");
                compareLists(plain(actual), plain(expected), row.extId);
                if (QTest::currentTestFailed())
                    return;
            }
            QCOMPARE(valueOf(m_postgres->traceEvents(id), "reading traces"),
                     valueOf(m_sqlite->traceEvents(id), "reading traces"));
            QCOMPARE(valueOf(m_postgres->callFacts(id), "reading call facts").size(),
                     valueOf(m_sqlite->callFacts(id), "reading call facts").size());
            QCOMPARE(valueOf(m_postgres->lastSeq(id), "reading the last seq"),
                     valueOf(m_sqlite->lastSeq(id), "reading the last seq"));
        }
    }

    void escalationsReadAlike()
    {
        const qint64 open = valueOf(m_sqlite->countOpenEscalations(), "counting escalations");
        QCOMPARE(valueOf(m_postgres->countOpenEscalations(), "counting escalations"), open);
        const QList<EscalationRow> rows = valueOf(m_sqlite->openEscalations(0, 1000), "reading escalations");
        compareLists(plain(valueOf(m_postgres->openEscalations(0, 1000), "reading escalations")), plain(rows),
                     QStringLiteral("open escalations"));
        if (QTest::currentTestFailed())
            return;
        // Each backend's rows by its own ids, paired by their place in the same order.
        const QList<EscalationRow> theirs =
                valueOf(m_postgres->openEscalations(0, 1000), "reading escalations");
        for (qsizetype i = 0; i < rows.size(); ++i)
            QCOMPARE(plain(valueOf(m_postgres->escalation(theirs.at(i).id), "reading")),
                     plain(valueOf(m_sqlite->escalation(rows.at(i).id), "reading")));
        const QList<EscalationSettlement> settled =
                valueOf(m_sqlite->escalationSettlements(0, 1000), "reading settlements");
        const QList<EscalationSettlement> theirsSettled =
                valueOf(m_postgres->escalationSettlements(0, 1000), "reading settlements");
        QVERIFY(settled.size() >= 2);
        // In id order, which each backend gave out its own way: compared as sets.
        const auto byContent = [](const EscalationSettlement &a, const EscalationSettlement &b) {
            return std::tuple(int(a.state), a.resolution ? int(*a.resolution) : -1, a.reference, a.resolvedAt)
                    < std::tuple(int(b.state), b.resolution ? int(*b.resolution) : -1, b.reference,
                                 b.resolvedAt);
        };
        QList<EscalationSettlement> mine = plain(settled);
        QList<EscalationSettlement> others = plain(theirsSettled);
        std::sort(mine.begin(), mine.end(), byContent);
        std::sort(others.begin(), others.end(), byContent);
        QCOMPARE(others, mine);
        for (const EscalationRow &row : m_settled) {
            const std::optional<EscalationDetail> detail = valueOf(m_sqlite->escalation(row.id), "reading");
            QVERIFY(detail);
            const qint64 theirId = m_settledThere.at(&row - m_settled.data()).id;
            QCOMPARE(plain(valueOf(m_postgres->escalation(theirId), "reading")), plain(detail));
            QCOMPARE(plain(valueOf(m_postgres->evidence(theirId), "reading evidence")),
                     plain(valueOf(m_sqlite->evidence(detail->id), "reading evidence")));
            QCOMPARE(plain(valueOf(m_postgres->intentCalls(detail->ticketId, detail->intentKey),
                                   "reading intent calls")),
                     plain(valueOf(m_sqlite->intentCalls(detail->ticketId, detail->intentKey),
                                   "reading intent calls")));
        }
    }

    void financeReadsAlike()
    {
        QCOMPARE(plain(valueOf(m_postgres->payouts(0, 4'000'000'000'000), "reading payouts")),
                 plain(valueOf(m_sqlite->payouts(0, 4'000'000'000'000), "reading payouts")));
        QCOMPARE(valueOf(m_postgres->newestPayoutAt(), "reading the newest payout"),
                 valueOf(m_sqlite->newestPayoutAt(), "reading the newest payout"));
        QCOMPARE(valueOf(m_postgres->newestPerformedPayoutAt(), "reading the newest performed payout"),
                 valueOf(m_sqlite->newestPerformedPayoutAt(), "reading the newest performed payout"));
        const QList<SellerBalance> sellers = valueOf(m_sqlite->sellerBalances(), "reading sellers");
        QVERIFY(!sellers.isEmpty());
        QCOMPARE(valueOf(m_postgres->sellerBalances(), "reading sellers"), sellers);
        for (const SellerBalance &seller : sellers)
            QCOMPARE(plain(valueOf(m_postgres->sellerHistory(seller.id), "reading a seller")),
                     plain(valueOf(m_sqlite->sellerHistory(seller.id), "reading a seller")));
        QCOMPARE(valueOf(m_postgres->payoutMarks(), "reading marks"),
                 valueOf(m_sqlite->payoutMarks(), "reading marks"));
        QCOMPARE(plain(valueOf(m_postgres->ledgerEntries(0, 100), "reading the ledger")),
                 plain(valueOf(m_sqlite->ledgerEntries(0, 100), "reading the ledger")));
        QCOMPARE(plain(valueOf(m_postgres->evidenceRows(0, 100), "reading evidence")),
                 plain(valueOf(m_sqlite->evidenceRows(0, 100), "reading evidence")));
    }

    void classificationReadsAlike()
    {
        const QList<UnclassifiedTool> tools =
                valueOf(m_sqlite->unclassifiedTools(), "reading unclassified tools");
        const bool inferred = std::any_of(tools.cbegin(), tools.cend(), [](const UnclassifiedTool &tool) {
            return tool.tool == QLatin1String("make_it_right") && tool.inferredClass == ToolClass::WriteMoney;
        });
        QVERIFY2(inferred, "the tool no profile knows is listed with its inferred class");
        QCOMPARE(valueOf(m_postgres->unclassifiedTools(), "reading unclassified tools"), tools);
        for (const UnclassifiedTool &tool : tools)
            QCOMPARE(plain(valueOf(m_postgres->unclassifiedCalls(tool.tool), "reading calls")),
                     plain(valueOf(m_sqlite->unclassifiedCalls(tool.tool), "reading calls")));
    }

    void cleanupTestCase()
    {
        m_sqlite.reset();
        m_postgres.reset();
    }
};

QTEST_GUILESS_MAIN(BackendParity)
#include "tst_backendparity.moc"
