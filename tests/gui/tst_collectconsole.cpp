// A desk's console on its SQLite file while `verity collect` writes into the same file: a refund
// that timed out, sent by the agent's exporter, is in the console's escalation queue within two
// seconds (SQLite's data version tells the console another connection committed), and the
// person's chosen row and open ticket stay where they were.

#include "collect/collectserver.h"
#include "domain/registrychoice.h"
#include "escalationqueuepane.h"
#include "itemmodels/ticketqueuemodel.h"
#include "mainwindow.h"
#include "support/teststore.h"
#include "ticketqueuepane.h"
#include "ticketview.h"

#include <QEventLoop>
#include <QLabel>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

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
              const std::string &callId, const json &arguments, bool timedOut)
{
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
                {"startTimeUnixNano", "1773940000000000000"},
                {"endTimeUnixNano", "1773940001000000000"},
                {"attributes", attributes},
                {"status", status}};
}

int post(quint16 port, const json &spans)
{
    const json request{{"resourceSpans", json::array({{{"scopeSpans", json::array({{{"spans", spans}}})}}})}};
    QNetworkAccessManager network;
    QNetworkRequest http(QUrl(QStringLiteral("http://127.0.0.1:%1/v1/traces").arg(port)));
    http.setRawHeader("Content-Type", "application/json");
    QNetworkReply *reply = network.post(http, QByteArray::fromStdString(request.dump()));
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    delete reply;
    return status;
}

} // namespace

class CollectConsoleTest : public QObject
{
    Q_OBJECT

private slots:
    void anUnknownRefundSentToTheReceiverIsInTheQueueWithinTwoSeconds();
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

    // The desk already has a conversation, and the person has it open.
    QCOMPARE(post(*port,
                  json::array({toolSpan("conv-desk-1", "1111111111111111", "get_order", "call_A1",
                                        json{{"order_id", "BW-1"}}, false)})),
             200);
    MainWindow window(*watching, location, RegistrySource{});
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTableView *queue = window.queuePane()->table();
    QTableView *escalations = window.escalationPane()->table();
    QTRY_COMPARE(queue->model()->rowCount(), 1);
    queue->selectRow(0);
    QTRY_VERIFY(window.ticketView()->isVisible());
    const qint64 open = queue->model()->index(0, 0).data(TicketQueueModel::TicketIdRole).toLongLong();
    QCOMPARE(escalations->model()->rowCount(), 0);

    // Another conversation's refund times out at the payment provider.
    QElapsedTimer sent;
    sent.start();
    QCOMPARE(post(*port,
                  json::array({toolSpan("conv-desk-2", "2222222222222222", "issue_refund", "call_B1",
                                        json{{"order_id", "BW-2"}, {"amount_cents", 4500}}, true)})),
             200);
    QTRY_COMPARE_WITH_TIMEOUT(escalations->model()->rowCount(), 1, promisedMs);
    qInfo("in the escalation queue %lld ms after it was sent", sent.elapsed());
    QTRY_COMPARE_WITH_TIMEOUT(queue->model()->rowCount(), 2, promisedMs);
    // The person's place: the ticket they chose is still chosen and still open.
    const QModelIndexList chosen = queue->selectionModel()->selectedRows();
    QCOMPARE(chosen.size(), 1);
    QCOMPARE(chosen.first().data(TicketQueueModel::TicketIdRole).toLongLong(), open);
    QCOMPARE(window.findChild<QLabel *>(QStringLiteral("escalationCount"))->text().contains(u'1'), true);
}

QTEST_MAIN(CollectConsoleTest)
#include "tst_collectconsole.moc"
