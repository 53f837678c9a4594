// The replay timeline of a ticket: on the demo incident (the March refund), every layer's step
// in time order, what each layer knew at the decisive moments, and where the three retry
// mechanisms stood; on a ticket without HTTP or provider lines, what is inferred and what is
// said to be unknown. Real SQLite files, the real importer.

#include "../store/storetestsupport.h"
#include "import/importjob.h"
#include "itemmodels/replaystepmodel.h"
#include "replay/incidenttimeline.h"
#include "support/strings.h"
#include "support/testmacros.h"
#include "support/teststore.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;

namespace {

const QString incidentTicket = QStringLiteral("T-20260317-0412");

const TimelineStep *stepOf(const IncidentTimeline &timeline, const QString &key)
{
    for (const TimelineStep &step : timeline.steps) {
        if (step.key == key)
            return &step;
    }
    return nullptr;
}

QString knows(const TimelineStep &step, ReplayLayer layer)
{
    for (const LayerKnowledge &k : step.knowledge) {
        if (k.layer == layer)
            return k.knows;
    }
    return {};
}

const RetryStanding *standing(const TimelineStep &step, RetryMechanism mechanism)
{
    for (const RetryStanding &r : step.retries) {
        if (r.mechanism == mechanism)
            return &r;
    }
    return nullptr;
}

// Refund c1, called at 1 s, whose result (at `resultAt`) left its outcome unknown.
TranscriptEntry unknownRefund(qint64 resultAt, const QString &result)
{
    TranscriptEntry entry;
    entry.isToolCall = true;
    entry.seq = 1;
    entry.at = 1000;
    ToolCallRow &call = entry.call;
    call.callExtId = QStringLiteral("c1");
    call.tool = QStringLiteral("issue_refund");
    call.toolClass = ToolClass::WriteMoney;
    call.calledAt = 1000;
    call.hasResult = true;
    call.resultAt = resultAt;
    call.rawResult = result;
    call.outcome = Outcome::Unknown;
    return entry;
}

} // namespace

class TestIncidentTimeline : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<Store> m_store;

    IncidentTimeline timelineOf(const QString &extId)
    {
        Expected<std::optional<qint64>> id = m_store->ticketIdByExtId(extId);
        if (!id || !*id)
            return {};
        Expected<std::optional<TicketDetail>> ticket = m_store->ticket(**id);
        Expected<QList<TranscriptEntry>> transcript = m_store->transcript(**id);
        Expected<QList<TraceEvent>> traces = m_store->traceEvents(**id);
        if (!ticket || !*ticket || !transcript || !traces)
            return {};
        return buildIncidentTimeline(**ticket, *transcript, *traces);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_store = test::openTestStore(m_dir.filePath(QStringLiteral("demo.sqlite")));
        QVERIFY(m_store);
        const ImportReport report = storetest::importFile(*m_store, demoDataResource());
        QVERIFY2(report.clean(), qPrintable(storetest::describe(report)));
    }

    void stepsInTimeOrderAcrossLayers()
    {
        const IncidentTimeline timeline = timelineOf(incidentTicket);
        QVERIFY(timeline.hasLowerLayers);
        for (qsizetype i = 1; i < timeline.steps.size(); ++i)
            QVERIFY2(timeline.steps[i - 1].at <= timeline.steps[i].at, qPrintable(timeline.steps[i].key));

        // The twelve seconds, step by step, as the layers lived them.
        QStringList from;
        bool inside = false;
        for (const TimelineStep &step : timeline.steps) {
            inside = inside || step.key == u"c3.call";
            if (inside)
                from.append(step.kind + u' ' + replayLayerName(step.layer) + u' ' + step.callExtId);
        }
        const QStringList expected{
                QStringLiteral("tool_call Model c3"), // 14:32:07 the model asks for the refund
                QStringLiteral("http_request HTTP client c3"), // 14:32:07 POST, a fresh key
                QStringLiteral("provider_record Provider c3"), // 14:32:07.412 accepted: money moves
                QStringLiteral("client_timeout HTTP client c3"), // 14:32:12 no answer in 5 s
                QStringLiteral("tool_result Tool framework c3"), // "refund failed: upstream timeout"
                QStringLiteral("model_read Model c3"), // reads "failed"
                QStringLiteral("model_decision Model "), // "The refund failed. Trying again."
                QStringLiteral("tool_call Model c4"), // the same refund again
                QStringLiteral("http_request HTTP client c4"), // another fresh key
                QStringLiteral("provider_record Provider c4"), // accepted again
                QStringLiteral("http_answer HTTP client c4"), // 200
                QStringLiteral("tool_result Tool framework c4"),
                QStringLiteral("model_read Model c4"),
                QStringLiteral("reply Model "), // one refund described
        };
        QCOMPARE(from, expected);
        // Keys are stable and unique, so notes stay on their step.
        QSet<QString> keys;
        for (const TimelineStep &step : timeline.steps)
            keys.insert(step.key);
        QCOMPARE(keys.size(), timeline.steps.size());
        QCOMPARE(timelineOf(incidentTicket).steps.constFirst().key, timeline.steps.constFirst().key);
    }

    void whatEachLayerKnew_data()
    {
        QTest::addColumn<QString>("step");
        QTest::addColumn<int>("layer");
        QTest::addColumn<QStringList>("mentions");
        const auto l = [](ReplayLayer layer) { return int(layer); };
        // At the provider's acceptance the client is still waiting and the model knows nothing of it.
        QTest::newRow("provider accepted c3") << QStringLiteral("provider c3") << l(ReplayLayer::Provider)
                                              << test::strings({"Accepted 1 refund", "SU-88421", "$118.00"});
        QTest::newRow("client still waiting") << QStringLiteral("provider c3") << l(ReplayLayer::HttpClient)
                                              << test::strings({"Sent POST /v1/refunds for c3", "waiting"});
        QTest::newRow("tool waiting with a key")
                << QStringLiteral("provider c3") << l(ReplayLayer::ToolFramework)
                << test::strings({"Waiting on POST", "c3", "key"});
        QTest::newRow("client gives up") << QStringLiteral("c3.result") << l(ReplayLayer::HttpClient)
                                         << test::strings({"Gave up on c3 after 5.0 s", "does not know"});
        QTest::newRow("model reads failed")
                << QStringLiteral("c3.read") << l(ReplayLayer::Model)
                << test::strings({"refund failed: upstream timeout", "failed", "trying again"});
        QTest::newRow("provider knows two") << QStringLiteral("c4.read") << l(ReplayLayer::Provider)
                                            << test::strings({"Accepted 2 refunds", "$236.00"});
        QTest::newRow("model believes done") << QStringLiteral("c4.read") << l(ReplayLayer::Model)
                                             << test::strings({"believes issue_refund c4 was done"});
        QTest::newRow("customer told once") << QStringLiteral("last") << l(ReplayLayer::Customer)
                                            << test::strings({"Was told", "refunded $118.00"});
    }

    void whatEachLayerKnew()
    {
        QFETCH(QString, step);
        QFETCH(int, layer);
        QFETCH(QStringList, mentions);
        const IncidentTimeline timeline = timelineOf(incidentTicket);
        const TimelineStep *at = nullptr;
        if (step == u"last") {
            at = &timeline.steps.constLast();
        } else if (step.startsWith(QStringLiteral("provider "))) {
            for (const TimelineStep &s : timeline.steps) {
                if (s.kind == u"provider_record" && s.callExtId == step.mid(9))
                    at = &s;
            }
        } else {
            at = stepOf(timeline, step);
        }
        QVERIFY(at);
        const QString text = knows(*at, ReplayLayer(layer));
        for (const QString &mention : std::as_const(mentions))
            QVERIFY2(text.contains(mention, Qt::CaseInsensitive),
                     qPrintable(text + QStringLiteral(" lacks ") + mention));
    }

    void theModelReadFailedWhileTheProviderHadPaid()
    {
        const IncidentTimeline timeline = timelineOf(incidentTicket);
        const TimelineStep *read = stepOf(timeline, QStringLiteral("c3.read"));
        QVERIFY(read);
        QVERIFY2(read->detail.contains(QStringLiteral("Meanwhile the provider had accepted re_")),
                 qPrintable(read->detail));
        // The second request carried a different key from the first: the provider could not dedupe.
        for (const TimelineStep &step : timeline.steps) {
            if (step.kind == u"http_request" && step.callExtId == u"c4")
                QVERIFY2(step.detail.contains(QStringLiteral("A fresh key: c3 sent")),
                         qPrintable(step.detail));
        }
    }

    void retryMechanisms()
    {
        const IncidentTimeline timeline = timelineOf(incidentTicket);
        const TimelineStep *beforeRetry = stepOf(timeline, QStringLiteral("c3.read"));
        const TimelineStep *retry = stepOf(timeline, QStringLiteral("c4.call"));
        QVERIFY(beforeRetry && retry);
        QVERIFY(!standing(*beforeRetry, RetryMechanism::Model)->retried);
        // Only the model retried; the client and the tool each sent one request per call, and
        // none of the three could see the others.
        const RetryStanding *model = standing(*retry, RetryMechanism::Model);
        QVERIFY(model->retried);
        QVERIFY2(model->standing.contains(QStringLiteral("c4 repeats c3")), qPrintable(model->standing));
        QVERIFY(model->blindTo.contains(QStringLiteral("provider")));
        const TimelineStep &last = timeline.steps.constLast();
        QVERIFY(!standing(last, RetryMechanism::HttpClient)->retried);
        QVERIFY(!standing(last, RetryMechanism::ToolFramework)->retried);
        QVERIFY2(
                standing(last, RetryMechanism::ToolFramework)->standing.contains(QStringLiteral("fresh key")),
                qPrintable(standing(last, RetryMechanism::ToolFramework)->standing));
        QVERIFY(standing(last, RetryMechanism::Model)->retried);
    }

    void stepModel()
    {
        ReplayStepModel model(*m_store);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const qint64 id = m_store->ticketIdByExtId(incidentTicket)->value_or(0);
        QVERIFY_OK(model.load(id));
        QCOMPARE(model.rowCount(), int(timelineOf(incidentTicket).steps.size()));
        QSignalSpy moved(&model, &ReplayStepModel::currentStepChanged);
        model.stepBack(); // already at the first step: nothing moves
        QCOMPARE(model.currentStep(), 0);
        QCOMPARE(moved.count(), 0);
        model.setCurrentStep(10000); // clamped
        QCOMPARE(model.currentStep(), model.rowCount() - 1);
        model.stepForward();
        QCOMPARE(moved.count(), 1);

        // A note is saved with the ticket, replaced, and removed by saving it empty.
        model.setClock([] { return qint64(1774000000000); });
        QVERIFY_OK(model.setNote(3, QStringLiteral("first"), QStringLiteral("trainer")));
        QVERIFY_OK(model.setNote(3, QStringLiteral("second"), QStringLiteral("trainer")));
        Expected<QList<TrainerNote>> notes = m_store->trainerNotes(id);
        QVERIFY_OK(notes);
        QCOMPARE(notes->size(), 1);
        QCOMPARE(notes->first().text, QStringLiteral("second"));
        QCOMPARE(notes->first().stepKey, model.step(3)->key);
        QCOMPARE(notes->first().writtenAt, qint64(1774000000000));
        QCOMPARE(model.data(model.index(3, ReplayStepModel::NoteColumn)).toString(),
                 QStringLiteral("second"));
        QVERIFY_OK(model.setNote(3, QStringLiteral("  "), QStringLiteral("trainer")));
        QVERIFY(m_store->trainerNotes(id)->isEmpty());
        QVERIFY(!model.setNote(100000, QStringLiteral("x"), QStringLiteral("trainer")));
        // A note that would read as something else is refused, and nothing is kept of it.
        const Expected<void> reversed =
                model.setNote(3, QStringLiteral("look \u202elive"), QStringLiteral("trainer"));
        QVERIFY(!reversed);
        QVERIFY2(reversed.message().contains(QStringLiteral("U+202E")), qPrintable(reversed.message()));
        QVERIFY(m_store->trainerNotes(id)->isEmpty());
        QVERIFY(!model.load(999999));
    }

    void ticketWithoutLowerLayers()
    {
        // An ordinary ticket (a refund that worked): nothing beneath the transcript was logged, so
        // the provider's side is not guessed.
        const IncidentTimeline timeline = timelineOf(QStringLiteral("T-20260317-0241"));
        QVERIFY(!timeline.steps.isEmpty());
        QVERIFY(!timeline.hasLowerLayers);
        QVERIFY(knows(timeline.steps.constLast(), ReplayLayer::Provider)
                        .contains(QStringLiteral("Not logged")));
        for (const TimelineStep &step : timeline.steps)
            QVERIFY(step.kind != u"provider_record");
    }

    void lookupsAreNotRetries()
    {
        // The safe tool after a timeout: one POST, then reads of the provider's list (the client
        // tries a read again on a 503). Reads are no retry of the write.
        TicketDetail ticket;
        ticket.row.extId = QStringLiteral("T-Y");
        const TranscriptEntry entry =
                unknownRefund(7000, QStringLiteral(R"({"outcome":"unknown","retry":"do_not_retry"})"));
        const auto http = [](qint64 seq, qint64 at, const char *method, int attempt,
                             std::optional<int> status) {
            TraceEvent trace;
            trace.seq = seq;
            trace.at = at;
            trace.callExtId = QStringLiteral("c1");
            trace.http.method = QString::fromLatin1(method);
            trace.http.url = QStringLiteral("/v1/refunds");
            trace.http.attempt = attempt;
            trace.http.status = status;
            trace.http.error = status ? QString() : QStringLiteral("timeout");
            trace.http.durationMs = 100;
            return trace;
        };
        const IncidentTimeline timeline =
                buildIncidentTimeline(ticket, {entry},
                                      {http(2, 1000, "POST", 1, std::nullopt), http(3, 6000, "GET", 1, 503),
                                       http(4, 6300, "GET", 2, 503)});
        const TimelineStep &last = timeline.steps.constLast();
        QVERIFY(!standing(last, RetryMechanism::ToolFramework)->retried);
        QVERIFY(!standing(last, RetryMechanism::HttpClient)->retried);
        QVERIFY(!standing(last, RetryMechanism::Model)->retried);
        QVERIFY2(standing(last, RetryMechanism::ToolFramework)
                         ->standing.contains(QStringLiteral("Looked up c1")),
                 qPrintable(standing(last, RetryMechanism::ToolFramework)->standing));
        QVERIFY(knows(last, ReplayLayer::Model).contains(QStringLiteral("unknown: not to retry")));
    }

    void transcriptOrderWithoutTimes()
    {
        // Anthropic Messages give no time per event: the steps keep the transcript's order, each
        // call followed by its result and what the model read, before the next line.
        std::unique_ptr<Store> store =
                test::openTestStore(m_dir.filePath(QStringLiteral("anthropic.sqlite")));
        QVERIFY(store);
        const ImportReport report = storetest::importFile(
                *store, QStringLiteral(VERITY_TEST_DATA "/formats/anthropic-support.jsonl"));
        QVERIFY2(report.clean(), qPrintable(storetest::describe(report)));
        const qint64 id = store->ticketIdByExtId(QStringLiteral("conv-anth-0042"))->value_or(0);
        QVERIFY(id > 0);
        const IncidentTimeline timeline =
                buildIncidentTimeline(**store->ticket(id), *store->transcript(id), *store->traceEvents(id));
        QVERIFY(timeline.steps.size() > 4);
        QVERIFY2(timeline.steps.constFirst().kind != u"tool_call",
                 qPrintable(timeline.steps.constFirst().title));
        QString open; // the call whose result has not been shown yet
        for (const TimelineStep &step : timeline.steps) {
            if (step.kind == u"tool_call") {
                QVERIFY2(
                        open.isEmpty(),
                        qPrintable(QStringLiteral("%1 called before %2's result").arg(step.callExtId, open)));
                open = step.callExtId;
            } else if (step.kind == u"model_read") {
                QCOMPARE(step.callExtId, open);
                open.clear();
            }
        }
    }

    void inferredTimeout()
    {
        // A timeout named only by the result is shown, marked inferred.
        TicketDetail ticket;
        ticket.row.extId = QStringLiteral("T-X");
        ticket.order.id = QStringLiteral("O-1");
        const TranscriptEntry entry =
                unknownRefund(6000, QStringLiteral(R"({"error":"refund failed: upstream timeout"})"));
        const IncidentTimeline timeline = buildIncidentTimeline(ticket, {entry}, {});
        QStringList kinds;
        for (const TimelineStep &step : timeline.steps)
            kinds.append(step.kind + (step.inferred ? QStringLiteral(" (inferred)") : QString()));
        QCOMPARE(kinds,
                 (QStringList{QStringLiteral("tool_call"), QStringLiteral("client_timeout (inferred)"),
                              QStringLiteral("tool_result"), QStringLiteral("model_read")}));
    }
};

QTEST_GUILESS_MAIN(TestIncidentTimeline)
#include "tst_incidenttimeline.moc"
