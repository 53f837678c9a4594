// On PostgreSQL the importer's rows of new tickets are held and written by COPY when a batch
// commits (postgresimportbatch.h); on SQLite each is a statement of its own. The same files
// imported into both, at batch sizes that end batches between a call and its result, with a
// conversation undone halfway, lines repeated, a seller's balance stated out of order and a
// second file that goes on with the first file's tickets, must leave the same rows in both,
// table by table, and the same report.

#include "domain/registrychoice.h"
#include "import/transcriptimporter.h"
#include "store/sqlstore.h"
#include "store/storefactory.h"
#include "storetestsupport.h"
#include "support/postgrescluster.h"

#include <QSqlRecord>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;
using namespace storetest;

namespace {

QByteArray seller(const QByteArray &opened, const QJsonValue &balance, const QString &asOf)
{
    QJsonObject object = parseObject(opened);
    QJsonObject owner = object.value(QStringLiteral("seller")).toObject();
    owner.insert(QStringLiteral("id"), QStringLiteral("shared-seller"));
    owner.insert(QStringLiteral("name"), QStringLiteral("Shared Seller"));
    if (balance.isUndefined())
        owner.remove(QStringLiteral("balance_cents"));
    else
        owner.insert(QStringLiteral("balance_cents"), balance);
    owner.insert(QStringLiteral("balance_as_of"), asOf);
    object.insert(QStringLiteral("seller"), owner);
    return line(object);
}

QByteArray http(const QString &ticket, const QString &at, const QString &callId, const QString &error)
{
    return line({{QStringLiteral("type"), QStringLiteral("http")},
                 {QStringLiteral("ticket"), ticket},
                 {QStringLiteral("at"), at},
                 {QStringLiteral("call_id"), callId},
                 {QStringLiteral("method"), QStringLiteral("POST")},
                 {QStringLiteral("url"), QStringLiteral("/v1/refunds")},
                 {QStringLiteral("error"), error}});
}

// Tickets whose lines interleave, so that a batch ends between a call and its result.
QList<QByteArray> nativeLines()
{
    const QString t1 = QStringLiteral("T-1"), t2 = QStringLiteral("T-2"), t3 = QStringLiteral("T-3");
    return {
            seller(ticketOpened(t1, QStringLiteral("2026-03-17T10:00:00Z")), 1000,
                   QStringLiteral("2026-03-17T09:00:00Z")),
            message(t1, QStringLiteral("2026-03-17T10:00:01Z"), QStringLiteral("customer"),
                    QStringLiteral("Cracked.\tTab, newline\nand a backslash \\ here")),
            message(t1, QStringLiteral("2026-03-17T10:00:01Z"), QStringLiteral("customer"),
                    QStringLiteral("Cracked.\tTab, newline\nand a backslash \\ here")), // the same line again
            refundCall(t1, QStringLiteral("2026-03-17T10:00:02Z"), QStringLiteral("c1")),
            http(t1, QStringLiteral("2026-03-17T10:00:02Z"), QStringLiteral("c1"), QStringLiteral("timeout")),
            seller(ticketOpened(t2, QStringLiteral("2026-03-17T10:01:00Z")), QJsonValue::Undefined,
                   QStringLiteral("2026-03-17T11:00:00Z")),
            toolResult(t1, QStringLiteral("2026-03-17T10:00:07Z"), QStringLiteral("c1"),
                       R"({"error":"upstream timeout"})"),
            refundCall(t1, QStringLiteral("2026-03-17T10:00:09Z"),
                       QStringLiteral("c2")), // the same intent again
            seller(ticketOpened(t3, QStringLiteral("2026-03-17T10:02:00Z")), 700,
                   QStringLiteral("2026-03-17T12:00:00Z")),
            refundCall(t2, QStringLiteral("2026-03-17T10:01:05Z"), QStringLiteral("c1"), 1500),
            toolResult(t1, QStringLiteral("2026-03-17T10:00:10Z"), QStringLiteral("c2"),
                       R"({"id":"re_2","status":"succeeded"})"),
            message(QStringLiteral("t-2"), QStringLiteral("2026-03-17T10:01:06Z"), QStringLiteral("customer"),
                    QStringLiteral("Named in lower case")),
            toolResult(t2, QStringLiteral("2026-03-17T10:01:07Z"), QStringLiteral("c1"),
                       R"({"id":"re_9","status":"succeeded"})"),
            seller(ticketOpened(QStringLiteral("T-4"), QStringLiteral("2026-03-17T10:03:00Z")), 400,
                   QStringLiteral("2026-03-17T08:00:00Z")), // older than the balance stored before it
            reply(t3, QStringLiteral("2026-03-17T10:02:05Z"), QStringLiteral("On its way.")),
            refundCall(t3, QStringLiteral("2026-03-17T10:02:06Z"), QStringLiteral("c1")), // never answered
            message(QStringLiteral("T-404"), QStringLiteral("2026-03-17T10:02:07Z"),
                    QStringLiteral("customer"), QStringLiteral("A ticket never opened")),
    };
}

// The second file: more of T-1 and T-3, stored by the first, and a new ticket.
QList<QByteArray> moreLines()
{
    return {
            toolResult(QStringLiteral("T-3"), QStringLiteral("2026-03-17T10:02:09Z"), QStringLiteral("c1"),
                       R"({"error":"timeout"})"),
            message(QStringLiteral("T-1"), QStringLiteral("2026-03-17T10:05:00Z"), QStringLiteral("customer"),
                    QStringLiteral("Any news?")),
            refundCall(QStringLiteral("T-1"), QStringLiteral("2026-03-17T10:05:01Z"), QStringLiteral("c3")),
            seller(ticketOpened(QStringLiteral("T-5"), QStringLiteral("2026-03-17T10:06:00Z")), 900,
                   QStringLiteral("2026-03-17T13:00:00Z")),
            refundCall(QStringLiteral("T-5"), QStringLiteral("2026-03-17T10:06:01Z"), QStringLiteral("c1")),
            toolResult(QStringLiteral("T-5"), QStringLiteral("2026-03-17T10:06:02Z"), QStringLiteral("c1"),
                       R"({"error":"timeout"})"),
            toolResult(QStringLiteral("T-1"), QStringLiteral("2026-03-17T10:05:03Z"), QStringLiteral("c3"),
                       R"({"id":"re_3","status":"succeeded"})"),
    };
}

// Conversations in OpenAI chat form, each call answered with a timeout.
QByteArray chat(const QString &id, const QList<std::array<QString, 3>> &calls,
                const QString &opening = QStringLiteral("My shelf arrived cracked."))
{
    QJsonArray messages{QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                                    {QStringLiteral("content"), opening}}};
    for (const auto &[callId, tool, arguments] : calls) {
        messages.append(QJsonObject{
                {QStringLiteral("role"), QStringLiteral("assistant")},
                {QStringLiteral("content"), QJsonValue()},
                {QStringLiteral("tool_calls"),
                 QJsonArray{QJsonObject{{QStringLiteral("id"), callId},
                                        {QStringLiteral("type"), QStringLiteral("function")},
                                        {QStringLiteral("function"),
                                         QJsonObject{{QStringLiteral("name"), tool},
                                                     {QStringLiteral("arguments"), arguments}}}}}}});
        messages.append(QJsonObject{{QStringLiteral("role"), QStringLiteral("tool")},
                                    {QStringLiteral("tool_call_id"), callId},
                                    {QStringLiteral("content"), QStringLiteral(R"({"error":"timeout"})")}});
    }
    return QJsonDocument(QJsonObject{{QStringLiteral("id"), id}, {QStringLiteral("messages"), messages}})
            .toJson(QJsonDocument::Compact);
}

const QString refundA = QStringLiteral(R"({"order_id":"SU-1","item_id":"A","amount_cents":11800})");
const QString refundB = QStringLiteral(R"({"order_id":"SU-1","item_id":"B","amount_cents":500})");
const QString lookup = QStringLiteral(R"({"order_id":"SU-1"})");

QList<QByteArray> chatLines()
{
    return {
            chat(QStringLiteral("kept-1"), {{QStringLiteral("c1"), QStringLiteral("issue_refund"), refundA}}),
            chat(QStringLiteral("kept-2"),
                 {{QStringLiteral("c1"), QStringLiteral("get_order"), lookup},
                  {QStringLiteral("c2"), QStringLiteral("issue_refund"), refundA}}),
    };
}

// Then: a new conversation; one that goes on with kept-2 and is refused halfway (its c2 is
// another call now), so that what it stored is undone and the new one before it kept; another
// new one; and kept-1 told otherwise, refused at its first turn.
QList<QByteArray> moreChatLines()
{
    return {
            chat(QStringLiteral("kept-3"),
                 {{QStringLiteral("c1"), QStringLiteral("issue_refund"), refundB},
                  {QStringLiteral("c2"), QStringLiteral("issue_refund"), refundB}}),
            chat(QStringLiteral("kept-2"),
                 {{QStringLiteral("c1"), QStringLiteral("get_order"), lookup},
                  {QStringLiteral("c3"), QStringLiteral("issue_refund"), refundB},
                  {QStringLiteral("c2"), QStringLiteral("issue_refund"), refundB}}),
            chat(QStringLiteral("kept-4"), {{QStringLiteral("c1"), QStringLiteral("get_order"), lookup}}),
            chat(QStringLiteral("kept-1"), {{QStringLiteral("c1"), QStringLiteral("issue_refund"), refundA}},
                 QStringLiteral("Another opening entirely.")),
    };
}

// Every stored row that an import writes, named by what a person knows it by (ids are each
// backend's own), sorted.
QStringList dump(QSqlDatabase &db)
{
    const char *const queries[] = {
            "SELECT 'ticket', ext_id, order_id, seller_id, seller_name, subject, opened_at, fingerprint, "
            "last_seq, write_count, worst_outcome, needs_attention, has_unknown, has_repeat, "
            "duplicate_effects, "
            "seller_balance_cents, seller_balance_as_of, source_format, registry, retry_count, "
            "harmless_repeats, "
            "unsettled_repeats, duplicate_cents, task, origin, dated_by, attention_rank FROM tickets",
            "SELECT 'message', t.ext_id, m.seq, m.at, m.kind, m.text, m.fingerprint FROM messages m "
            "JOIN tickets t ON t.id = m.ticket_id",
            "SELECT 'call', t.ext_id, c.seq, c.call_ext_id, c.tool, c.tool_class, c.arguments, c.called_at, "
            "c.intent_key, c.intent_error, c.amount_cents, c.amount_error, c.fingerprint, c.raw_result, "
            "c.result_at, c.duration_ms, c.result_fingerprint, c.outcome, c.outcome_reason, c.read_failed, "
            "c.repeated, c.result_error, c.result_error_type, c.repeat_kind, r.call_ext_id FROM tool_calls c "
            "JOIN tickets t ON t.id = c.ticket_id LEFT JOIN tool_calls r ON r.id = c.repeat_of",
            "SELECT 'trace', t.ext_id, e.seq, e.at, e.kind, e.call_ext_id, e.detail, e.fingerprint "
            "FROM trace_events e JOIN tickets t ON t.id = e.ticket_id",
            "SELECT 'escalation', t.ext_id, c.call_ext_id, e.state, e.opened_at, e.amount_cents "
            "FROM escalations e JOIN tool_calls c ON c.id = e.tool_call_id JOIN tickets t ON t.id = "
            "e.ticket_id",
            "SELECT 'seller', id, name, balance_cents, balance_as_of FROM sellers",
            "SELECT 'order', id, seller_id, currency, customer_name, customer_email, payment_intent FROM "
            "orders",
            "SELECT 'item', order_id, item_id, title, quantity, amount_cents FROM order_items",
            "SELECT 'totals', sum(tickets), sum(needs_attention), sum(unknown), sum(repeated), "
            "sum(duplicate_effect), sum(retry_after_error), sum(open_escalations) FROM queue_totals",
    };
    QStringList rows;
    for (const char *sql : queries) {
        QSqlQuery query(db);
        if (!query.exec(QString::fromLatin1(sql)))
            qFatal("%s: %s", sql, qPrintable(query.lastError().text()));
        while (query.next()) {
            QStringList fields;
            for (int i = 0; i < query.record().count(); ++i)
                fields << (query.value(i).isNull() ? QStringLiteral("NULL") : query.value(i).toString());
            rows << fields.join(QStringLiteral(" | "));
        }
    }
    rows.sort();
    return rows;
}

QStringList reportOf(const ImportReport &report)
{
    QStringList said{report.summary(), report.fatal};
    said << report.rejectionMessages();
    return said;
}

} // namespace

class TestHeldImport : public QObject
{
    Q_OBJECT

private:
    test::PostgresCluster m_cluster;
    QTemporaryDir m_folder;
    int m_databases = 0;

    bool writeFile(const QString &name, const QList<QByteArray> &lines)
    {
        return writeLines(m_folder.filePath(name), lines);
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.error()));
        QVERIFY(writeFile(QStringLiteral("native.jsonl"), nativeLines()));
        QVERIFY(writeFile(QStringLiteral("more.jsonl"), moreLines()));
        QVERIFY(writeFile(QStringLiteral("chat.jsonl"), chatLines()));
        QVERIFY(writeFile(QStringLiteral("morechat.jsonl"), moreChatLines()));
    }

    void sameRowsAsSqlite_data()
    {
        QTest::addColumn<QStringList>("files");
        QTest::addColumn<int>("batchSize");
        const QString native = QStringLiteral("native.jsonl"), more = QStringLiteral("more.jsonl"),
                      chat = QStringLiteral("chat.jsonl"), moreChat = QStringLiteral("morechat.jsonl");
        for (int batch : {1, 2, 3, 5, 2000}) {
            QTest::addRow("native, batches of %d", batch) << QStringList{native} << batch;
            QTest::addRow("native, then more of its tickets, batches of %d", batch)
                    << QStringList{native, more} << batch;
        }
        QTest::addRow("native twice") << QStringList{native, native, more, more} << 3;
        for (int batch : {1, 4, 2000})
            QTest::addRow("conversations, two refused, batches of %d", batch)
                    << QStringList{chat, native, moreChat} << batch;
    }

    void sameRowsAsSqlite()
    {
        QFETCH(QStringList, files);
        QFETCH(int, batchSize);
        const QString name = QStringLiteral("held%1").arg(++m_databases);
        const QString location = m_cluster.createDatabase(name);
        QVERIFY2(!location.isEmpty(), qPrintable(m_cluster.error()));
        Expected<std::unique_ptr<Store>> postgres = verity::openStore(location);
        Expected<std::unique_ptr<Store>> sqlite =
                verity::openStore(m_folder.filePath(name + QStringLiteral(".sqlite")));
        if (!postgres || !sqlite)
            QFAIL(qPrintable(!postgres ? postgres.message() : sqlite.message()));
        for (const QString &file : std::as_const(files)) {
            QStringList reports;
            for (Store *store : {sqlite->get(), postgres->get()}) {
                TranscriptImporter importer(*store, automaticRegistries(QString()));
                importer.setBatchSize(batchSize);
                reports << reportOf(importer.importFile(m_folder.filePath(file))).join(u'\n');
            }
            if (qEnvironmentVariableIsSet("HELD_IMPORT_REPORTS"))
                qInfo().noquote() << reports.at(0);
            QCOMPARE(reports.at(1), reports.at(0));
        }
        const QStringList onSqlite = dump(dynamic_cast<SqlStore &>(**sqlite).connection());
        const QStringList onPostgres = dump(dynamic_cast<SqlStore &>(**postgres).connection());
        for (qsizetype i = 0; i < qMax(onSqlite.size(), onPostgres.size()); ++i)
            QCOMPARE(onPostgres.value(i), onSqlite.value(i));
        QVERIFY(onSqlite.size() > 20);
    }

    // The store alone, as the importer drives it: a savepoint over held rows is undone in
    // memory, and once a write had to go to the server inside it, in the server too; what was
    // held before it stays either way.
    void savepointsOverHeldRows()
    {
        const QString location = m_cluster.createDatabase(QStringLiteral("savepoints"));
        QVERIFY2(!location.isEmpty(), qPrintable(m_cluster.error()));
        Expected<std::unique_ptr<Store>> opened = verity::openStore(location);
        if (!opened)
            QFAIL(qPrintable(opened.message()));
        Store &store = **opened;
        const auto ticket = [](const QString &name) {
            NewTicket t;
            t.extId = name;
            t.openedAt = 1'800'000'000'000;
            t.fingerprint = QStringLiteral("fp-") + name;
            return t;
        };
        const auto note = [](qint64 ticketId, qint64 seq, const QString &text) {
            return NewMessage{ticketId,
                              seq,
                              1'800'000'000'000 + seq,
                              MessageKind::Customer,
                              text,
                              QStringLiteral("fp-") + text};
        };
        // A ticket stored before, as another file left it.
        QVERIFY(store.begin());
        const qint64 stored = store.insertTicket(ticket(QStringLiteral("OLD"))).value().id;
        QVERIFY(store.commit());

        std::unique_ptr<ImportBatch> held = store.openImportBatch();
        QVERIFY(held);
        ImportBatch &batch = *held;
        QVERIFY(batch.begin());
        const qint64 kept = batch.insertTicket(ticket(QStringLiteral("KEPT"))).value().id;
        QCOMPARE(batch.insertMessage(note(kept, 1, QStringLiteral("before"))).value(), true);

        // Undone while all of it is held.
        QVERIFY(batch.savepoint());
        const qint64 gone = batch.insertTicket(ticket(QStringLiteral("GONE"))).value().id;
        QCOMPARE(batch.insertMessage(note(gone, 1, QStringLiteral("gone"))).value(), true);
        QCOMPARE(batch.insertMessage(note(kept, 2, QStringLiteral("after"))).value(), true);
        QVERIFY(batch.rollbackToSavepoint());
        QVERIFY(!batch.findTicket(QStringLiteral("GONE")).value());
        QVERIFY(batch.findTicket(QStringLiteral("kept")).value());

        // Undone after a write to a stored ticket made the savepoint real.
        QVERIFY(batch.savepoint());
        QCOMPARE(batch.insertMessage(note(kept, 2, QStringLiteral("after"))).value(),
                 true); // forgotten above
        QCOMPARE(batch.insertMessage(note(stored, 1, QStringLiteral("old-1"))).value(), true);
        const qint64 alsoGone = batch.insertTicket(ticket(QStringLiteral("ALSO-GONE"))).value().id;
        QCOMPARE(batch.insertMessage(note(alsoGone, 1, QStringLiteral("also"))).value(), true);
        QVERIFY(batch.callFacts(alsoGone)); // a read of a held ticket: written inside the savepoint
        QVERIFY(batch.rollbackToSavepoint());

        // Kept after a real savepoint: both halves stored.
        QVERIFY(batch.savepoint());
        QCOMPARE(batch.insertMessage(note(stored, 1, QStringLiteral("old-2"))).value(), true);
        QCOMPARE(batch.insertMessage(note(kept, 2, QStringLiteral("after"))).value(), true);
        QCOMPARE(batch.insertMessage(note(kept, 3, QStringLiteral("after"))).value(),
                 false); // the same again
        QVERIFY(batch.releaseSavepoint());
        QVERIFY(batch.commit());
        held.reset();

        QSqlQuery rows(dynamic_cast<SqlStore &>(store).connection());
        QVERIFY(rows.exec(QStringLiteral("SELECT t.ext_id || ':' || m.text FROM messages m "
                                         "JOIN tickets t ON t.id = m.ticket_id ORDER BY 1")));
        QStringList messages;
        while (rows.next())
            messages << rows.value(0).toString();
        QCOMPARE(messages,
                 (QStringList{QStringLiteral("KEPT:after"), QStringLiteral("KEPT:before"),
                              QStringLiteral("OLD:old-2")}));
        QVERIFY(rows.exec(
                QStringLiteral("SELECT string_agg(ext_id::text, ',' ORDER BY ext_id) FROM tickets")));
        QVERIFY(rows.next());
        QCOMPARE(rows.value(0).toString(), QStringLiteral("KEPT,OLD"));
    }

    // PostgreSQL's text cannot hold U+0000: a line that brings one is refused by the field that
    // holds it, and the rest of the file is stored.
    void nulCharacterRefusedByLine()
    {
        const QChar nul(u'\0');
        QJsonObject opened = parseObject(ticketOpened(QStringLiteral("T-B")));
        QJsonObject owner = opened.value(QStringLiteral("seller")).toObject();
        owner.insert(QStringLiteral("name"), QStringLiteral("Lin") + nul);
        opened.insert(QStringLiteral("seller"), owner);
        const QList<QByteArray> lines{
                ticketOpened(QStringLiteral("T-A")),
                message(QStringLiteral("T-A"), QStringLiteral("2026-03-17T10:00:01Z"),
                        QStringLiteral("customer"), QStringLiteral("a") + nul + QStringLiteral("b")),
                line(opened),
                with(refundCall(QStringLiteral("T-A"), QStringLiteral("2026-03-17T10:00:02Z"),
                                QStringLiteral("c1")),
                     QStringLiteral("tool"), QStringLiteral("issue") + nul + QStringLiteral("refund")),
                message(QStringLiteral("T-A"), QStringLiteral("2026-03-17T10:00:03Z"),
                        QStringLiteral("customer"), QStringLiteral("fine")),
                message(QStringLiteral("T-B"), QStringLiteral("2026-03-17T10:00:04Z"),
                        QStringLiteral("customer"), QStringLiteral("after the refused opening")),
        };
        QVERIFY(writeFile(QStringLiteral("nul.jsonl"), lines));
        const QString location = m_cluster.createDatabase(QStringLiteral("nul"));
        QVERIFY2(!location.isEmpty(), qPrintable(m_cluster.error()));
        Expected<std::unique_ptr<Store>> store = verity::openStore(location);
        if (!store)
            QFAIL(qPrintable(store.message()));
        TranscriptImporter importer(**store, automaticRegistries(QString()));
        const ImportReport report = importer.importFile(m_folder.filePath(QStringLiteral("nul.jsonl")));
        QVERIFY2(report.fatal.isEmpty(), qPrintable(report.fatal));
        QCOMPARE(report.ticketsOpened, 1);
        QCOMPARE(report.eventsImported, 2);
        const QStringList refused = report.rejectionMessages();
        QCOMPARE(refused.size(), 4);
        const char *const fields[] = {":2: text contains", ":3: seller.name contains", ":4: tool contains"};
        for (int i = 0; i < 3; ++i) {
            QVERIFY2(refused.at(i).contains(QLatin1String(fields[i])), qPrintable(refused.at(i)));
            QVERIFY2(refused.at(i).contains(QStringLiteral("U+0000")), qPrintable(refused.at(i)));
        }
        // The refused ticket's later lines say where its opening was refused.
        QVERIFY2(refused.at(3).contains(QLatin1String(":6: ticket \"T-B\" was not opened: its ticket_opened "
                                                      "event (at line 3) was refused")),
                 qPrintable(refused.at(3)));
    }

    void cleanupTestCase() { m_cluster.stop(); }
};

QTEST_GUILESS_MAIN(TestHeldImport)
#include "tst_heldimport.moc"
