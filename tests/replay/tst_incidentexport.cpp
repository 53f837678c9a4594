// Incident exports: the demo incident and a τ-bench address change leave as one redacted,
// self-contained file that opens read-only and tells the same story (messages, calls,
// outcomes, repeats, notes), with none of the buyer's personal data left in any byte of it.

#include "../store/storetestsupport.h"
#include "domain/registryselection.h"
#include "import/importjob.h"
#include "replay/incidentexport.h"
#include "support/asnobody.h"
#include "support/teststore.h"

#include <QDir>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

using namespace verity;
using nlohmann::json;

namespace {

const QString demoTicket = QStringLiteral("T-20260317-0412");
const QString addressTicket = QStringLiteral("T-ADDR-1");
const QString traceTicket = QStringLiteral("T-TRACE-1");

RegistrySelection allProfiles()
{
    QList<NamedRegistry> profiles;
    for (const QString &name : builtInProfileNames())
        profiles.append(NamedRegistry{name, *builtInProfile(name)});
    return RegistrySelection::automatic(profiles);
}

// Values under the keys that name personal data, gathered by the test itself from the source.
void collectPersonal(const json &value, QStringList &out)
{
    static const QStringList keys{QStringLiteral("first_name"), QStringLiteral("last_name"),
                                  QStringLiteral("email"),      QStringLiteral("address1"),
                                  QStringLiteral("address2"),   QStringLiteral("city"),
                                  QStringLiteral("zip"),        QStringLiteral("user_id"),
                                  QStringLiteral("last_four"),  QStringLiteral("buyer")};
    if (value.is_object()) {
        for (auto it = value.begin(); it != value.end(); ++it) {
            if (keys.contains(QString::fromStdString(it.key())) && it->is_string())
                out.append(QString::fromStdString(it->get<std::string>()));
            collectPersonal(*it, out);
        }
    } else if (value.is_array()) {
        for (const json &element : value)
            collectPersonal(element, out);
    } else if (value.is_string()) {
        // τ² results: the tool's JSON as a string.
        const json inner = json::parse(value.get<std::string>(), nullptr, false);
        if (inner.is_structured())
            collectPersonal(inner, out);
    }
}

QStringList personalValuesOf(Store &store, qint64 ticketId)
{
    QStringList values;
    const TicketDetail ticket = **store.ticket(ticketId);
    if (!ticket.order.customerName.isEmpty())
        values << ticket.order.customerName << ticket.order.customerName.split(u' ');
    if (!ticket.order.customerEmail.isEmpty())
        values << ticket.order.customerEmail;
    const QList<TranscriptEntry> transcript = *store.transcript(ticketId);
    for (const TranscriptEntry &entry : transcript) {
        if (!entry.isToolCall)
            continue;
        collectPersonal(json::parse(entry.call.argumentsJson.toStdString(), nullptr, false), values);
        collectPersonal(json::parse(entry.call.rawResult.toStdString(), nullptr, false), values);
    }
    values.removeDuplicates();
    return values;
}

struct CallStory
{
    QString tool;
    ToolClass toolClass = ToolClass::Unclassified;
    std::optional<Outcome> outcome;
    std::optional<qint64> amountCents;
    bool repeated = false;
    std::optional<RepeatKind> repeatKind;
    QString repeatOf;
    QString intentKey;
};

QHash<QString, CallStory> callsOf(Store &store, qint64 ticketId)
{
    QHash<QString, CallStory> calls;
    const QList<TranscriptEntry> transcript = *store.transcript(ticketId);
    for (const TranscriptEntry &entry : transcript) {
        if (entry.isToolCall) {
            const ToolCallRow &call = entry.call;
            calls.insert(call.callExtId,
                         {call.tool, call.toolClass, call.outcome, call.amountCents, call.repeated,
                          call.repeatKind, call.repeatOfCallId, call.intentKey});
        }
    }
    return calls;
}

} // namespace

class TestIncidentExport : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void demoIncident();
    void tauAddressChange();
    void repeatedIntentWithPersonalData();
    void traceLinesAndUrlsCarryNoPersonalData();
    void replacesAnExistingFileOnlyOnSuccess();
    void unwritableFolder();
    void missingTicket();
    void openingOtherFiles();

private:
    qint64 ticketId(const QString &extId);
    // Exports, then checks the file byte by byte and column by column for `personal`, and that
    // it is one file in delete-journal mode with nothing beside it.
    OpenedIncidentExport exportAndCheck(qint64 id, const QString &name, const QStringList &personal);
    void compareStories(qint64 sourceId, OpenedIncidentExport &exported);

    QTemporaryDir m_dir;
    std::unique_ptr<Store> m_source;
    QString m_tauTicket;
};

qint64 TestIncidentExport::ticketId(const QString &extId)
{
    Expected<std::optional<qint64>> id = m_source->ticketIdByExtId(extId);
    return id && *id ? **id : 0;
}

void TestIncidentExport::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QString error;
    m_source = test::openTestStore(m_dir.filePath(QStringLiteral("source.sqlite")), &error);
    QVERIFY2(m_source, qPrintable(error));

    TranscriptImporter demo(*m_source, allProfiles());
    const ImportReport demoReport = demo.importFile(demoDataResource());
    QVERIFY2(demoReport.clean(), qPrintable(storetest::describe(demoReport)));
    TranscriptImporter tau(*m_source, allProfiles());
    const ImportReport tauReport =
            tau.importFile(QStringLiteral(VERITY_TEST_DATA "/tau/tau2-gpt-4.1-retail.json"));
    QVERIFY2(tauReport.fatal.isEmpty(), qPrintable(storetest::describe(tauReport)));

    // A hand-made ticket whose repeated write carries personal data in its intent fields.
    const QString at = QStringLiteral("2026-03-18T09:00:00Z");
    const QJsonObject address{{QStringLiteral("user_id"), QStringLiteral("yusuf_rossi_9620")},
                              {QStringLiteral("address1"), QStringLiteral("12 Elm Street")},
                              {QStringLiteral("address2"), QStringLiteral("Apt 4B")},
                              {QStringLiteral("city"), QStringLiteral("Philadelphia")},
                              {QStringLiteral("state"), QStringLiteral("PA")},
                              {QStringLiteral("country"), QStringLiteral("USA")},
                              {QStringLiteral("zip"), QStringLiteral("19122")}};
    const auto call = [&](const QString &id, const QString &when) {
        return storetest::line({{QStringLiteral("type"), QStringLiteral("tool_call")},
                                {QStringLiteral("ticket"), addressTicket},
                                {QStringLiteral("at"), when},
                                {QStringLiteral("call_id"), id},
                                {QStringLiteral("tool"), QStringLiteral("modify_user_address")},
                                {QStringLiteral("arguments"), address}});
    };
    const QString lines = m_dir.filePath(QStringLiteral("address.jsonl"));
    QVERIFY(storetest::writeLines(
            lines,
            {storetest::ticketOpened(addressTicket, at),
             storetest::message(
                     addressTicket, at, QStringLiteral("customer"),
                     QStringLiteral("Please move my address to 12 Elm Street, Apt 4B, Philadelphia 19122. "
                                    "Call me on (215) 555-0147.")),
             call(QStringLiteral("a1"), QStringLiteral("2026-03-18T09:01:00Z")),
             storetest::toolResult(addressTicket, QStringLiteral("2026-03-18T09:01:05Z"),
                                   QStringLiteral("a1"), R"({"error":"upstream timeout"})"),
             call(QStringLiteral("a2"), QStringLiteral("2026-03-18T09:01:10Z")),
             storetest::toolResult(
                     addressTicket, QStringLiteral("2026-03-18T09:01:12Z"), QStringLiteral("a2"),
                     R"({"user_id":"yusuf_rossi_9620","name":{"first_name":"Yusuf","last_name":"Rossi"}})"),
             storetest::reply(addressTicket, QStringLiteral("2026-03-18T09:02:00Z"),
                              QStringLiteral("Done, Yusuf: your address is now 12 Elm Street."))}));
    TranscriptImporter retail(
            *m_source,
            RegistrySelection::forced(NamedRegistry{QStringLiteral("tau-retail"),
                                                    *builtInProfile(QStringLiteral("tau-retail"))}));
    const ImportReport addressReport = retail.importFile(lines);
    QVERIFY2(addressReport.clean(), qPrintable(storetest::describe(addressReport)));

    // A refund whose HTTP and provider lines carry the buyer's e-mail, name and phone, plain
    // and percent-encoded, and a second one whose lines carry nothing personal.
    const QJsonObject customer{{QStringLiteral("name"), QStringLiteral("Dana Whitfield")},
                               {QStringLiteral("email"), QStringLiteral("dana.w@example.com")}};
    const auto trace = [](const QString &type, const QString &when, const QString &callId,
                          QJsonObject fields) {
        fields.insert(QStringLiteral("type"), type);
        fields.insert(QStringLiteral("ticket"), traceTicket);
        fields.insert(QStringLiteral("at"), when);
        fields.insert(QStringLiteral("call_id"), callId);
        return storetest::line(fields);
    };
    const QString personalKey = QStringLiteral("refund-dana.w@example.com-O-T-TRACE-1");
    const QString traced = m_dir.filePath(QStringLiteral("trace.jsonl"));
    QVERIFY(storetest::writeLines(
            traced,
            {storetest::with(storetest::ticketOpened(traceTicket, at), QStringLiteral("customer"), customer),
             storetest::message(traceTicket, at, QStringLiteral("customer"),
                                QStringLiteral("Hi, Dana here; call me on +1 555 123 4567.")),
             storetest::refundCall(traceTicket, QStringLiteral("2026-03-18T09:01:00Z"), QStringLiteral("c1")),
             trace(QStringLiteral("http"), QStringLiteral("2026-03-18T09:01:00Z"), QStringLiteral("c1"),
                   {{QStringLiteral("method"), QStringLiteral("POST")},
                    {QStringLiteral("url"),
                     QStringLiteral("https://psp.example/v1/refunds?customer_email=dana.w%40example.com"
                                    "&cust=Dana+Whitfield&name=Dana%20Whitfield&phone=%2B15551234567")},
                    {QStringLiteral("idempotency_key"), personalKey},
                    {QStringLiteral("attempt"), 1},
                    {QStringLiteral("error"), QStringLiteral("timeout for dana.w%40example.com")},
                    {QStringLiteral("duration_ms"), 5000}}),
             trace(QStringLiteral("http"), QStringLiteral("2026-03-18T09:01:06Z"), QStringLiteral("c1"),
                   {{QStringLiteral("method"), QStringLiteral("POST")},
                    {QStringLiteral("url"),
                     QStringLiteral("/v1/customers/dana.w%40example.com/refunds?phone=555-123-4567")},
                    {QStringLiteral("idempotency_key"), personalKey},
                    {QStringLiteral("attempt"), 2},
                    {QStringLiteral("status"), 200},
                    {QStringLiteral("duration_ms"), 300}}),
             trace(QStringLiteral("provider"), QStringLiteral("2026-03-18T09:01:06.2Z"), QStringLiteral("c1"),
                   {{QStringLiteral("event"), QStringLiteral("refund.created for dana.w@example.com")},
                    {QStringLiteral("object_id"), QStringLiteral("re_Dana_Whitfield")},
                    {QStringLiteral("idempotency_key"), personalKey},
                    {QStringLiteral("amount_cents"), 4200}}),
             storetest::toolResult(traceTicket, QStringLiteral("2026-03-18T09:01:07Z"), QStringLiteral("c1"),
                                   R"({"refund_id":"re_Dana_Whitfield","status":"succeeded"})"),
             storetest::refundCall(traceTicket, QStringLiteral("2026-03-18T09:02:00Z"), QStringLiteral("c2"),
                                   1000),
             trace(QStringLiteral("http"), QStringLiteral("2026-03-18T09:02:00Z"), QStringLiteral("c2"),
                   {{QStringLiteral("method"), QStringLiteral("POST")},
                    {QStringLiteral("url"),
                     QStringLiteral(
                             "https://psp.example/v1/refunds?expand=charge&since=2026-03-18T09%3A00%3A00Z")},
                    {QStringLiteral("idempotency_key"),
                     QStringLiteral("611cd3de-414a-4261-88b1-e77f4b062153")},
                    {QStringLiteral("attempt"), 1},
                    {QStringLiteral("status"), 200},
                    {QStringLiteral("duration_ms"), 250}}),
             trace(QStringLiteral("provider"), QStringLiteral("2026-03-18T09:02:00.2Z"), QStringLiteral("c2"),
                   {{QStringLiteral("event"), QStringLiteral("refund.created")},
                    {QStringLiteral("object_id"), QStringLiteral("re_qC5HTJz9NXdvjue0N7DDR7I5")},
                    {QStringLiteral("idempotency_key"),
                     QStringLiteral("611cd3de-414a-4261-88b1-e77f4b062153")},
                    {QStringLiteral("amount_cents"), 1000}}),
             storetest::toolResult(traceTicket, QStringLiteral("2026-03-18T09:02:01Z"), QStringLiteral("c2"),
                                   R"({"refund_id":"re_qC5HTJz9NXdvjue0N7DDR7I5","status":"succeeded"})")}));
    TranscriptImporter tracedImport(*m_source, allProfiles());
    const ImportReport tracedReport = tracedImport.importFile(traced);
    QVERIFY2(tracedReport.clean(), qPrintable(storetest::describe(tracedReport)));

    // The τ conversation in which Mei Patel changes her address.
    Expected<QList<TicketRow>> rows = m_source->tickets(TicketQuery{}, 0, 1000);
    QVERIFY2(rows, rows ? "" : qPrintable(rows.message()));
    for (const TicketRow &row : *rows) {
        const QList<TranscriptEntry> transcript = *m_source->transcript(row.id);
        for (const TranscriptEntry &entry : transcript) {
            if (entry.isToolCall && entry.call.tool == u"modify_user_address"
                && entry.call.argumentsJson.contains(QLatin1String("445 Maple Drive")))
                m_tauTicket = row.extId;
        }
    }
    QVERIFY(!m_tauTicket.isEmpty());

    // Trainers' notes, one quoting the buyer.
    const qint64 demo0412 = ticketId(demoTicket);
    QVERIFY(demo0412 > 0);
    Expected<void> saved = m_source->saveTrainerNote(
            demo0412,
            TrainerNote{QStringLiteral("call:c4"),
                        QStringLiteral(
                                "Dana Whitfield got two refunds here; she left 555-123-4567 for a callback."),
                        QStringLiteral("Trainer Tess"), 1773800000000});
    QVERIFY2(saved, saved ? "" : qPrintable(saved.message()));
    saved = m_source->saveTrainerNote(demo0412,
                                      TrainerNote{QStringLiteral("call:c3"), QStringLiteral("The timeout."),
                                                  QStringLiteral("Trainer Tess"), 1773800001000});
    QVERIFY2(saved, saved ? "" : qPrintable(saved.message()));
}

OpenedIncidentExport TestIncidentExport::exportAndCheck(qint64 id, const QString &name,
                                                        const QStringList &personal)
{
    const QString path = m_dir.filePath(name);
    Expected<IncidentExportSummary> summary = exportIncident(*m_source, id, path, 1773900000000);
    if (!summary)
        qWarning("%s", qPrintable(summary.message()));
    if (!summary)
        return {};
    if (summary->redactions.isEmpty() || summary->path != QFileInfo(path).absoluteFilePath())
        qWarning("unexpected summary: %s", qPrintable(summary->redactionSummary));

    // One file: no journal, WAL or shared memory beside it, nothing half-made left in the folder.
    for (const char *suffix : {"-wal", "-shm", "-journal"})
        if (QFileInfo::exists(path + QLatin1String(suffix)))
            qWarning("side file left: %s%s", qPrintable(path), suffix);
    const QStringList partials =
            QDir(m_dir.path()).entryList({QStringLiteral("*.partial-*")}, QDir::Files | QDir::Hidden);
    if (!partials.isEmpty())
        qWarning("partial files left: %s", qPrintable(partials.join(u' ')));
    const QByteArray bytes = storetest::fileBytes(path);
    // Bytes 18 and 19 of an SQLite file are its write and read versions: 1 is rollback journal.
    if (bytes.size() < 100 || bytes.at(18) != 1 || bytes.at(19) != 1)
        qWarning("the export is still in WAL mode");

    // Every byte, and every string column of every table.
    const QByteArray lower = bytes.toLower();
    for (const QString &value : personal) {
        if (bytes.contains(value.toUtf8()) || (value.size() >= 5 && lower.contains(value.toLower().toUtf8())))
            qWarning("personal value left in the file: %s", qPrintable(value));
    }
    {
        storetest::RawSqlite raw(path, QStringLiteral("QSQLITE_OPEN_READONLY"));
        QSqlQuery tables(raw.db());
        tables.exec(QStringLiteral("SELECT name FROM sqlite_schema WHERE type = 'table'"));
        QStringList names;
        while (tables.next())
            names << tables.value(0).toString();
        for (const QString &table : std::as_const(names)) {
            QSqlQuery rows(raw.db());
            rows.exec(QStringLiteral("SELECT * FROM \"%1\"").arg(table));
            while (rows.next()) {
                for (int column = 0; column < rows.record().count(); ++column) {
                    const QString text = rows.value(column).toString();
                    for (const QString &value : personal) {
                        if (text.contains(value, value.size() >= 5 ? Qt::CaseInsensitive : Qt::CaseSensitive))
                            qWarning("personal value %s left in %s: %s", qPrintable(value), qPrintable(table),
                                     qPrintable(text.left(200)));
                    }
                }
            }
        }
    }

    Expected<OpenedIncidentExport> opened = openIncidentExport(path);
    if (!opened) {
        qWarning("%s", qPrintable(opened.message()));
        return {};
    }
    return std::move(*opened);
}

void TestIncidentExport::compareStories(qint64 sourceId, OpenedIncidentExport &exported)
{
    Store &copy = *exported.store;
    const QList<TranscriptEntry> before = *m_source->transcript(sourceId);
    const QList<TranscriptEntry> after = *copy.transcript(exported.ticketId);
    QCOMPARE(after.size(), before.size());
    for (qsizetype i = 0; i < before.size(); ++i) {
        QCOMPARE(after.at(i).seq, before.at(i).seq);
        QCOMPARE(after.at(i).isToolCall, before.at(i).isToolCall);
        QCOMPARE(after.at(i).at, before.at(i).at);
        if (!before.at(i).isToolCall)
            QCOMPARE(after.at(i).kind, before.at(i).kind);
    }
    const QHash<QString, CallStory> was = callsOf(*m_source, sourceId);
    const QHash<QString, CallStory> is = callsOf(copy, exported.ticketId);
    QCOMPARE(is.size(), was.size());
    for (auto it = was.cbegin(); it != was.cend(); ++it) {
        QVERIFY2(is.contains(it.key()), qPrintable(it.key()));
        const CallStory &call = is.value(it.key());
        QCOMPARE(call.tool, it->tool);
        QCOMPARE(call.toolClass, it->toolClass);
        QCOMPARE(call.outcome, it->outcome);
        QCOMPARE(call.amountCents, it->amountCents);
        QCOMPARE(call.repeated, it->repeated);
        QCOMPARE(call.repeatKind, it->repeatKind);
        QCOMPARE(call.repeatOf, it->repeatOf);
        // Equal keys stay equal and different keys different.
        for (auto other = was.cbegin(); other != was.cend(); ++other) {
            if (!it->intentKey.isEmpty() && !other->intentKey.isEmpty())
                QCOMPARE(call.intentKey == is.value(other.key()).intentKey,
                         it->intentKey == other->intentKey);
        }
    }
    QCOMPARE(copy.traceEvents(exported.ticketId)->size(), m_source->traceEvents(sourceId)->size());
    const TicketDetail source = **m_source->ticket(sourceId);
    const TicketDetail target = **copy.ticket(exported.ticketId);
    QCOMPARE(target.row.extId, source.row.extId);
    QCOMPARE(target.row.repeats.duplicateEffects, source.row.repeats.duplicateEffects);
    QCOMPARE(target.row.hasRepeatedIntent, source.row.hasRepeatedIntent);
    QCOMPARE(target.row.worstOutcome, source.row.worstOutcome);
    QCOMPARE(target.row.sourceFormat, source.row.sourceFormat);
    QCOMPARE(target.order.id, source.order.id);
    QCOMPARE(target.order.items.size(), source.order.items.size());
    QCOMPARE(target.sellerId, source.sellerId);
    QCOMPARE(target.row.sellerName, source.row.sellerName);
    QCOMPARE(target.sellerBalanceCents, source.sellerBalanceCents);

    // Read-only: writes are refused.
    QVERIFY(!copy.setFileInfo(QStringLiteral("kind"), QStringLiteral("something else")));
    QVERIFY(!copy.saveTrainerNote(
            exported.ticketId,
            TrainerNote{QStringLiteral("x"), QStringLiteral("y"), QStringLiteral("z"), 1}));
}

void TestIncidentExport::demoIncident()
{
    const qint64 id = ticketId(demoTicket);
    QStringList personal = personalValuesOf(*m_source, id);
    personal << QStringLiteral("555-123-4567") << QStringLiteral("dana.whitfield");
    QVERIFY(personal.contains(QStringLiteral("Dana Whitfield")));
    QVERIFY(personal.contains(QStringLiteral("dana.whitfield@example.com")));

    QTest::failOnWarning(QRegularExpression(QStringLiteral(".*")));
    OpenedIncidentExport exported = exportAndCheck(id, QStringLiteral("demo.verity-incident"), personal);
    QVERIFY(exported.store);
    QCOMPARE(exported.fileInfo.value(QStringLiteral("kind")), QStringLiteral("incident-export"));
    QCOMPARE(exported.fileInfo.value(QStringLiteral("format_version")), QStringLiteral("1"));
    QCOMPARE(exported.fileInfo.value(QStringLiteral("source_ticket")), demoTicket);
    QCOMPARE(exported.fileInfo.value(QStringLiteral("registry")), QStringLiteral("default"));
    QCOMPARE(exported.fileInfo.value(QStringLiteral("exported_at")),
             QStringLiteral("2026-03-19T06:00:00.000Z"));
    QVERIFY(exported.fileInfo.value(QStringLiteral("redactions")).contains(QLatin1String("1 name")));
    compareStories(id, exported);

    // The repeat of the refund is still a repeat of the first call.
    const QHash<QString, CallStory> calls = callsOf(*exported.store, exported.ticketId);
    QCOMPARE(calls.value(QStringLiteral("c4")).repeatOf, QStringLiteral("c3"));
    QVERIFY(calls.value(QStringLiteral("c4")).repeated);

    const TicketDetail ticket = **exported.store->ticket(exported.ticketId);
    QCOMPARE(ticket.order.customerName, QStringLiteral("Buyer 1"));
    QCOMPARE(ticket.order.customerEmail, QStringLiteral("buyer1@example.invalid"));
    QCOMPARE(ticket.row.sellerName, QStringLiteral("Ashcombe Furniture"));
    bool sawBuyer = false;
    bool sawAmount = false;
    const QList<TranscriptEntry> transcript = *exported.store->transcript(exported.ticketId);
    for (const TranscriptEntry &entry : transcript) {
        sawBuyer = sawBuyer || entry.call.rawResult.contains(QLatin1String("\"buyer\":\"Buyer 1\""));
        sawAmount = sawAmount || entry.text.contains(QLatin1String("$118.00"));
    }
    QVERIFY(sawBuyer);
    QVERIFY(sawAmount);

    const QList<TrainerNote> notes = *exported.store->trainerNotes(exported.ticketId);
    QCOMPARE(notes.size(), 2);
    QCOMPARE(notes.at(1).stepKey, QStringLiteral("call:c4"));
    QCOMPARE(notes.at(1).text,
             QStringLiteral("Buyer 1 got two refunds here; she left [phone 1] for a callback."));
    QCOMPARE(notes.at(1).author, QStringLiteral("Trainer Tess"));
    QCOMPARE(notes.at(1).writtenAt, qint64(1773800000000));
}

void TestIncidentExport::tauAddressChange()
{
    const qint64 id = ticketId(m_tauTicket);
    QStringList personal = personalValuesOf(*m_source, id);
    for (const QString &value :
         {QStringLiteral("Mei"), QStringLiteral("Patel"), QStringLiteral("mei_patel_7272"),
          QStringLiteral("443 Maple Drive"), QStringLiteral("445 Maple Drive"), QStringLiteral("Fort Worth"),
          QStringLiteral("76165"), QStringLiteral("Suite 394")})
        QVERIFY2(personal.contains(value), qPrintable(value));

    QTest::failOnWarning(QRegularExpression(QStringLiteral(".*")));
    OpenedIncidentExport exported = exportAndCheck(id, QStringLiteral("tau.verity-incident"), personal);
    QVERIFY(exported.store);
    QCOMPARE(exported.fileInfo.value(QStringLiteral("registry")), QStringLiteral("tau-retail"));
    compareStories(id, exported);
}

void TestIncidentExport::repeatedIntentWithPersonalData()
{
    const qint64 id = ticketId(addressTicket);
    const QHash<QString, CallStory> source = callsOf(*m_source, id);
    QVERIFY(source.value(QStringLiteral("a2")).repeated);
    QCOMPARE(source.value(QStringLiteral("a2")).repeatOf, QStringLiteral("a1"));

    const QStringList personal{
            QStringLiteral("Yusuf"),         QStringLiteral("Rossi"),   QStringLiteral("yusuf_rossi_9620"),
            QStringLiteral("12 Elm Street"), QStringLiteral("Apt 4B"),  QStringLiteral("Philadelphia"),
            QStringLiteral("19122"),         QStringLiteral("555-0147")};
    QTest::failOnWarning(QRegularExpression(QStringLiteral(".*")));
    OpenedIncidentExport exported = exportAndCheck(id, QStringLiteral("address.verity-incident"), personal);
    QVERIFY(exported.store);
    QCOMPARE(exported.fileInfo.value(QStringLiteral("registry")), QStringLiteral("tau-retail"));
    compareStories(id, exported);
    const QHash<QString, CallStory> calls = callsOf(*exported.store, exported.ticketId);
    QCOMPARE(calls.value(QStringLiteral("a2")).intentKey, calls.value(QStringLiteral("a1")).intentKey);
    QVERIFY(!calls.value(QStringLiteral("a1")).intentKey.isEmpty());
    // The key is of the redacted inputs, so the original one (a hash of personal data) is gone.
    QVERIFY(calls.value(QStringLiteral("a1")).intentKey != source.value(QStringLiteral("a1")).intentKey);
    QCOMPARE(calls.value(QStringLiteral("a2")).repeatOf, QStringLiteral("a1"));
}

void TestIncidentExport::traceLinesAndUrlsCarryNoPersonalData()
{
    const qint64 id = ticketId(traceTicket);
    QVERIFY(id > 0);
    QCOMPARE(m_source->traceEvents(id)->size(), 5);
    // Every spelling the source holds: plain, percent-encoded, '+'-encoded, inside ids.
    const QStringList personal{QStringLiteral("dana.w@example.com"),
                               QStringLiteral("dana.w%40example.com"),
                               QStringLiteral("Dana Whitfield"),
                               QStringLiteral("Dana+Whitfield"),
                               QStringLiteral("Dana%20Whitfield"),
                               QStringLiteral("Dana_Whitfield"),
                               QStringLiteral("Dana"),
                               QStringLiteral("Whitfield"),
                               QStringLiteral("dana.w"),
                               QStringLiteral("%2B15551234567"),
                               QStringLiteral("+15551234567"),
                               QStringLiteral("5551234567"),
                               QStringLiteral("555-123-4567"),
                               QStringLiteral("555 123 4567")};
    QTest::failOnWarning(QRegularExpression(QStringLiteral(".*")));
    OpenedIncidentExport exported = exportAndCheck(id, QStringLiteral("trace.verity-incident"), personal);
    QVERIFY(exported.store);
    compareStories(id, exported);

    const QList<TraceEvent> before = *m_source->traceEvents(id);
    const QList<TraceEvent> after = *exported.store->traceEvents(exported.ticketId);
    QCOMPARE(after.size(), before.size());
    QHash<QString, QString> keyOf; // original key -> exported key: one each way
    for (qsizetype i = 0; i < after.size(); ++i) {
        const TraceEvent &was = before.at(i);
        const TraceEvent &is = after.at(i);
        QCOMPARE(is.kind, was.kind);
        QCOMPARE(is.callExtId, was.callExtId);
        const QString wasKey =
                was.kind == TraceKind::Http ? was.http.idempotencyKey : was.provider.idempotencyKey;
        const QString isKey =
                is.kind == TraceKind::Http ? is.http.idempotencyKey : is.provider.idempotencyKey;
        QVERIFY(!isKey.isEmpty());
        if (keyOf.contains(wasKey))
            QCOMPARE(isKey, keyOf.value(wasKey)); // the HTTP line and the provider line still pair
        keyOf.insert(wasKey, isKey);
    }
    QCOMPARE(keyOf.size(), 2);
    QVERIFY(keyOf.value(QStringLiteral("refund-dana.w@example.com-O-T-TRACE-1"))
            != QLatin1String("refund-dana.w@example.com-O-T-TRACE-1"));
    // What had nothing personal is byte-identical.
    QCOMPARE(keyOf.value(QStringLiteral("611cd3de-414a-4261-88b1-e77f4b062153")),
             QStringLiteral("611cd3de-414a-4261-88b1-e77f4b062153"));
    QCOMPARE(after.at(3).http.url, before.at(3).http.url);
    QCOMPARE(after.at(4).provider.objectId, QStringLiteral("re_qC5HTJz9NXdvjue0N7DDR7I5"));
    QCOMPARE(after.at(4).provider.event, QStringLiteral("refund.created"));
    // What had is redacted with the placeholders the rest of the incident uses.
    QCOMPARE(after.at(0).http.url,
             QStringLiteral("https://psp.example/v1/refunds?customer_email=buyer1%40example.invalid"
                            "&cust=Buyer+1&name=Buyer%201&phone=%5Bphone%201%5D"));
    QCOMPARE(after.at(0).http.error, QStringLiteral("timeout for buyer1@example.invalid"));
    QCOMPARE(after.at(2).provider.event, QStringLiteral("refund.created for buyer1@example.invalid"));
    QCOMPARE(after.at(2).provider.objectId, QStringLiteral("re_Buyer 1_Buyer 1"));
}

void TestIncidentExport::replacesAnExistingFileOnlyOnSuccess()
{
    const QString path = m_dir.filePath(QStringLiteral("existing.verity-incident"));
    QVERIFY(storetest::writeLines(path, {QByteArrayLiteral("an older file")}));
    Expected<IncidentExportSummary> failed = exportIncident(*m_source, 987654321, path);
    QVERIFY(!failed);
    QCOMPARE(storetest::fileBytes(path), QByteArrayLiteral("an older file\n"));

    Expected<IncidentExportSummary> done = exportIncident(*m_source, ticketId(demoTicket), path);
    QVERIFY2(done, done ? "" : qPrintable(done.message()));
    QCOMPARE(done->messages, qint64(7));
    QCOMPARE(done->toolCalls, qint64(4));
    QCOMPARE(done->traceEvents, qint64(4));
    QCOMPARE(done->trainerNotes, qint64(2));
    Expected<OpenedIncidentExport> opened = openIncidentExport(path);
    QVERIFY2(opened, opened ? "" : qPrintable(opened.message()));
}

void TestIncidentExport::unwritableFolder()
{
    // A "folder" that is a file: nobody, not even root, can create anything in it.
    const QString notAFolder = m_dir.filePath(QStringLiteral("plain-file"));
    QVERIFY(storetest::writeLines(notAFolder, {QByteArrayLiteral("x")}));
    const QString path = notAFolder + QStringLiteral("/export.verity-incident");
    Expected<IncidentExportSummary> result = exportIncident(*m_source, ticketId(demoTicket), path);
    QVERIFY(!result);
    QVERIFY2(result.message().contains(path) && result.message().contains(QLatin1String("does not exist")),
             qPrintable(result.message()));
    QVERIFY(!QFileInfo::exists(path));

    // A folder everyone may enter and none may write; root may write any folder, so the export
    // is made as another user.
    constexpr auto everyoneReads = QFileDevice::ReadOwner | QFileDevice::ExeOwner | QFileDevice::ReadGroup
            | QFileDevice::ExeGroup | QFileDevice::ReadOther | QFileDevice::ExeOther;
    const QString locked = m_dir.filePath(QStringLiteral("locked"));
    QVERIFY(QDir().mkpath(locked));
    QVERIFY(QFile::setPermissions(m_dir.path(), everyoneReads | QFileDevice::WriteOwner));
    QVERIFY(QFile::setPermissions(locked, everyoneReads));
    const QString lockedPath = locked + QStringLiteral("/export.verity-incident");
    {
        const test::AsNobody nobody;
        QVERIFY2(nobody.works(), "cannot run as the user nobody under root (setresuid)");
        result = exportIncident(*m_source, ticketId(demoTicket), lockedPath);
    }
    QFile::setPermissions(locked, everyoneReads | QFileDevice::WriteOwner);
    QVERIFY(!result);
    QVERIFY2(result.message().contains(QLatin1String("not writable")), qPrintable(result.message()));
    QVERIFY(QDir(locked).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot).isEmpty());
}

void TestIncidentExport::missingTicket()
{
    const QString path = m_dir.filePath(QStringLiteral("missing.verity-incident"));
    Expected<IncidentExportSummary> result = exportIncident(*m_source, 987654321, path);
    QVERIFY(!result);
    QVERIFY2(result.message().contains(QLatin1String("987654321"))
                     && result.message().contains(QLatin1String("no ticket")),
             qPrintable(result.message()));
    QVERIFY(!QFileInfo::exists(path));
}

void TestIncidentExport::openingOtherFiles()
{
    const auto refused = [](const QString &path, const QString &says) {
        Expected<OpenedIncidentExport> opened = openIncidentExport(path);
        if (opened)
            return QStringLiteral("opened %1").arg(path);
        if (!opened.message().contains(path) || !opened.message().contains(says))
            return opened.message();
        return QString();
    };
    QString problem = refused(m_dir.filePath(QStringLiteral("nowhere.verity-incident")),
                              QStringLiteral("no such file"));
    QVERIFY2(problem.isEmpty(), qPrintable(problem));

    const QString garbage = m_dir.filePath(QStringLiteral("garbage.verity-incident"));
    QVERIFY(storetest::writeLines(garbage, {QByteArray(300, 'g')}));
    problem = refused(garbage, QStringLiteral("not a Verity file"));
    QVERIFY2(problem.isEmpty(), qPrintable(problem));

    problem = refused(m_source->location(), QStringLiteral("is a Verity database, not an incident export"));
    QVERIFY2(problem.isEmpty(), qPrintable(problem));

    const QString foreign = m_dir.filePath(QStringLiteral("foreign.sqlite"));
    {
        storetest::RawSqlite raw(foreign);
        QCOMPARE(raw.exec(QStringLiteral("CREATE TABLE notes (text TEXT)")), QString());
    }
    problem = refused(foreign, QStringLiteral("another program"));
    QVERIFY2(problem.isEmpty(), qPrintable(problem));

    // Exports from a newer Verity: a newer schema, or a newer export format.
    const QString source = m_dir.filePath(QStringLiteral("demo.verity-incident"));
    QVERIFY(QFileInfo::exists(source));
    const QString newerSchema = m_dir.filePath(QStringLiteral("newer-schema.verity-incident"));
    QVERIFY(QFile::copy(source, newerSchema));
    {
        storetest::RawSqlite raw(newerSchema);
        QCOMPARE(raw.exec(QStringLiteral("PRAGMA user_version = 99")), QString());
    }
    problem = refused(newerSchema, QStringLiteral("newer Verity"));
    QVERIFY2(problem.isEmpty(), qPrintable(problem));

    const QString newerFormat = m_dir.filePath(QStringLiteral("newer-format.verity-incident"));
    QVERIFY(QFile::copy(source, newerFormat));
    {
        storetest::RawSqlite raw(newerFormat);
        QCOMPARE(raw.exec(QStringLiteral("UPDATE file_info SET value = '2' WHERE key = 'format_version'")),
                 QString());
    }
    problem = refused(newerFormat, QStringLiteral("format version 2"));
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

QTEST_GUILESS_MAIN(TestIncidentExport)
#include "tst_incidentexport.moc"
