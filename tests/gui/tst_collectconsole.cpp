// A desk's console on its SQLite file while `verity collect` writes into the same file: a refund
// that timed out, sent by the agent's exporter, is in the console's escalation queue within two
// seconds (SQLite's data version tells the console another connection committed), and the
// person's chosen row and open ticket stay where they were.

#include "collect/collectserver.h"
#include "domain/registrychoice.h"
#include "escalationqueuepane.h"
#include "itemmodels/ticketqueuemodel.h"
#include "mainwindow.h"
#include "outcomebadge.h"
#include "support/otlppost.h"
#include "support/teststore.h"
#include "ticketqueuepane.h"
#include "ticketview.h"

#include <QDateTime>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cstdio>

using namespace verity;
using namespace verity::test;
using nlohmann::json;

namespace {

constexpr int promisedMs = 2000;

json attribute(const char *key, const std::string &value)
{
    return json{{"key", key}, {"value", {{"stringValue", value}}}};
}

// One execute_tool span of conversation `conversation`; without a result it timed out.
json toolSpan(const std::string &conversation, const std::string &spanId, const std::string &tool,
              const std::string &callId, const json &arguments, bool timedOut, int startSecond = 0)
{
    const qint64 start = 1773940000LL + startSecond;
    json attributes = json::array(
            {attribute("gen_ai.operation.name", "execute_tool"), attribute("gen_ai.tool.name", tool),
             attribute("gen_ai.tool.call.id", callId), attribute("gen_ai.conversation.id", conversation),
             attribute("gen_ai.tool.call.arguments", arguments.dump())});
    json status = json::object();
    if (timedOut) {
        attributes.push_back(attribute("error.type", "timeout"));
        status = json{{"code", 2}, {"message", "no answer within 30s"}};
    } else {
        attributes.push_back(attribute("gen_ai.tool.call.result", json{{"status", "delivered"}}.dump()));
    }
    return json{{"traceId", "0123456789abcdef0123456789abcdef"},
                {"spanId", spanId},
                {"name", "execute_tool " + tool},
                {"startTimeUnixNano", std::to_string(start * 1000000000LL)},
                {"endTimeUnixNano", std::to_string((start + 1) * 1000000000LL)},
                {"attributes", attributes},
                {"status", status}};
}

int postBody(quint16 port, const char *path, const QByteArray &type, const QByteArray &body)
{
    return verity::test::postBody(
            QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(port).arg(QLatin1String(path))), type, body);
}

int post(quint16 port, const json &spans)
{
    const json request{{"resourceSpans", json::array({{{"scopeSpans", json::array({{{"spans", spans}}})}}})}};
    return postBody(port, "/v1/traces", "application/json", QByteArray::fromStdString(request.dump()));
}

} // namespace

class CollectConsoleTest : public QObject
{
    Q_OBJECT

private slots:
    void anUnknownRefundSentToTheReceiverIsInTheQueueWithinTwoSeconds();
    void aRefundInFlightIsShownSoUntilItsGraceEnds();
};

void CollectConsoleTest::anUnknownRefundSentToTheReceiverIsInTheQueueWithinTwoSeconds()
{
    QTemporaryDir folder;
    const QString location = folder.filePath(QStringLiteral("desk.sqlite"));
    std::unique_ptr<Store> receiving = openTestStore(location);
    std::unique_ptr<Store> watching = openTestStore(location);
    QVERIFY(receiving && watching);
    const Expected<RegistryChoice> registries = chooseRegistry({QString(), QString()});
    QVERIFY(registries);
    CollectServer receiver(*receiving, registries->selection, CollectOptions{});
    const Expected<quint16> port = receiver.listenOn(QHostAddress::LocalHost, 0);
    QVERIFY(port);

    // The desk already has more conversations than the queue shows at once; the person has the
    // newest open, at the top of the queue.
    json earlier = json::array();
    for (int i = 0; i < 60; ++i) {
        char spanId[17];
        std::snprintf(spanId, sizeof spanId, "%016x", 0x1000 + i);
        earlier.push_back(toolSpan("conv-desk-1-" + std::to_string(i), spanId, "get_order", "call_A1",
                                   json{{"order_id", "BW-1"}}, false, i));
    }
    QCOMPARE(post(*port, earlier), 200);
    MainWindow window(*watching, location, RegistrySource{});
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTableView *queue = window.queuePane()->table();
    QTableView *escalations = window.escalationPane()->table();
    QTRY_COMPARE(queue->model()->rowCount(), 60);
    queue->selectRow(0);
    QTRY_VERIFY(window.ticketView()->isVisible());
    const qint64 open = queue->model()->index(0, 0).data(TicketQueueModel::TicketIdRole).toLongLong();
    QCOMPARE(escalations->model()->rowCount(), 0);

    // Another conversation's refund times out at the payment provider.
    QElapsedTimer sent;
    sent.start();
    QCOMPARE(post(*port,
                  json::array({toolSpan("conv-desk-2", "2222222222222222", "issue_refund", "call_B1",
                                        json{{"order_id", "BW-2"}, {"amount_cents", 4500}}, true, 600)})),
             200);
    QTRY_COMPARE_WITH_TIMEOUT(escalations->model()->rowCount(), 1, promisedMs);
    qInfo("in the escalation queue %lld ms after it was sent", sent.elapsed());
    QTRY_COMPARE_WITH_TIMEOUT(queue->model()->rowCount(), 61, promisedMs);
    // The queue was at its top, and stays there: the new ticket is the first row in sight.
    QCOMPARE(queue->indexAt(QPoint(0, 0)).row(), 0);
    QCOMPARE(queue->model()->index(0, 0).data(TicketQueueModel::TicketIdRole).toLongLong() == open, false);
    // The person's place: the ticket they chose is still chosen and still open.
    const QModelIndexList chosen = queue->selectionModel()->selectedRows();
    QCOMPARE(chosen.size(), 1);
    QCOMPARE(chosen.first().data(TicketQueueModel::TicketIdRole).toLongLong(), open);
    QCOMPARE(window.findChild<QLabel *>(QStringLiteral("escalationCount"))->text().contains(u'1'), true);
}

// An agent runtime that reports each call as it makes it (Verity's event lines): the refund is
// in flight, not unknown, in the queue, in the ticket's strip and on its card, and nobody is
// asked to act; when no result comes within the grace, it is escalated like any unknown write.
void CollectConsoleTest::aRefundInFlightIsShownSoUntilItsGraceEnds()
{
    QTemporaryDir folder;
    const QString location = folder.filePath(QStringLiteral("live.sqlite"));
    std::unique_ptr<Store> receiving = openTestStore(location);
    std::unique_ptr<Store> watching = openTestStore(location);
    QVERIFY(receiving && watching);
    const Expected<RegistryChoice> registries = chooseRegistry({QString(), QString()});
    QVERIFY(registries);
    qint64 now = QDateTime::currentMSecsSinceEpoch();
    CollectOptions options;
    options.inFlightGraceMs = 120000;
    options.clock = [&now] { return now; };
    CollectServer receiver(*receiving, registries->selection, options);
    const Expected<quint16> port = receiver.listenOn(QHostAddress::LocalHost, 0);
    QVERIFY(port);

    const QByteArray lines =
            R"({"type":"ticket_opened","ticket":"T-LIVE","at":"2026-03-19T17:06:40Z","subject":"Lamp arrived broken",)"
            R"("order":{"id":"BW-9","currency":"USD","items":[{"id":"LMP-2","title":"Lamp","quantity":1,)"
            R"("amount_cents":4500}],"payment_intent":"pi_BW-9"},"seller":{"id":"brightwell","name":"Brightwell"}})"
            "\n"
            R"({"type":"tool_call","ticket":"T-LIVE","at":"2026-03-19T17:06:42Z","call_id":"c1",)"
            R"("tool":"issue_refund","arguments":{"order_id":"BW-9","item_id":"LMP-2","amount_cents":4500}})";
    QCOMPARE(postBody(*port, "/v1/events", "application/x-ndjson", lines), 200);

    MainWindow window(*watching, location, RegistrySource{});
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTableView *queue = window.queuePane()->table();
    QTRY_COMPARE(queue->model()->rowCount(), 1);
    const auto shown = [queue](int column) { return queue->model()->index(0, column).data().toString(); };
    QCOMPARE(shown(TicketQueueModel::OutcomeColumn), QStringLiteral("In flight"));
    QCOMPARE(shown(TicketQueueModel::AttentionColumn), QStringLiteral("In flight"));
    QCOMPARE(window.escalationPane()->table()->model()->rowCount(), 0);

    queue->selectRow(0);
    QTRY_VERIFY(window.ticketView()->isVisible());
    QWidget *card = nullptr;
    QTRY_VERIFY((card = window.ticketView()->findChild<QWidget *>(QStringLiteral("toolCallCard_c1"))));
    auto *badge = card->findChild<OutcomeBadge *>(QStringLiteral("outcomeBadge"));
    QVERIFY(badge);
    QCOMPARE(badge->text(), QStringLiteral("In flight"));
    QVERIFY(!card->findChild<QPushButton *>(QStringLiteral("lookupButton")));
    auto *strip = window.ticketView()->findChild<QPushButton *>(QStringLiteral("summaryInFlight"));
    QVERIFY2(strip && strip->text().contains(QStringLiteral("c1")), "the strip names the call in flight");

    // No result within the grace: an unknown write, escalated, in every view within two seconds.
    now += 121000;
    receiver.escalateOverdue();
    QTRY_COMPARE_WITH_TIMEOUT(window.escalationPane()->table()->model()->rowCount(), 1, promisedMs);
    QTRY_COMPARE_WITH_TIMEOUT(shown(TicketQueueModel::OutcomeColumn), outcomeLabel(Outcome::Unknown),
                              promisedMs);
    QTRY_VERIFY_WITH_TIMEOUT(window.ticketView()->findChild<QPushButton *>(QStringLiteral("lookupButton")),
                             promisedMs);
}

QTEST_MAIN(CollectConsoleTest)
#include "tst_collectconsole.moc"
