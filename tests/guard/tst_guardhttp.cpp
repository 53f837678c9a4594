// `verity guard --listen … --upstream …` in front of a Streamable HTTP MCP server, with the
// official SDK on both sides: its StreamableHTTPClientTransport talks to the guard, and the
// guard to the SDK's McpServer behind its StreamableHTTPServerTransport (a session each).

#include "guardagent.h"
#include "store/storefactory.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QTemporaryDir>

using namespace verity;
using namespace verity::test;
using nlohmann::json;

namespace {

json refundOf(const char *order, int cents)
{
    return json{{"order_id", order}, {"item_id", "OAK-4S"}, {"amount_cents", cents}};
}

int escalationOpenCount(const QString &database)
{
    Expected<std::unique_ptr<Store>> store = openStore(database);
    if (!store)
        return -1;
    Expected<qint64> count = (*store)->countOpenEscalations();
    return count ? int(*count) : -1;
}

// A raw request to the guard, as a browser page or another program might send it.
int statusOf(const QString &url, const QByteArray &method,
             const QList<QPair<QByteArray, QByteArray>> &headers, const QByteArray &body = QByteArray())
{
    QNetworkAccessManager network;
    QNetworkRequest request{QUrl(url)};
    for (const auto &[name, value] : headers)
        request.setRawHeader(name, value);
    QNetworkReply *reply = network.sendCustomRequest(request, method, body);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(10000, &loop, &QEventLoop::quit);
    loop.exec();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    reply->deleteLater();
    return status;
}

} // namespace

class GuardHttpTest : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void aTimedOutRefundIsHeldOverHttp();
    void foreignHostsAndOriginsAreRefused();
    void aCallToAServerThatIsDownDidNotHappen();

private:
    GuardAgent::Options options() const
    {
        GuardAgent::Options made;
        made.database = m_dir->filePath(QStringLiteral("desk.db"));
        made.ledger = m_dir->filePath(QStringLiteral("ledger.jsonl"));
        made.url = m_guard->url();
        return made;
    }
    QProcessEnvironment environment() const { return isolatedEnvironment(m_dir->path()); }

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<ListeningProcess> m_server;
    std::unique_ptr<ListeningProcess> m_guard;
};

void GuardHttpTest::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    QProcessEnvironment server = environment();
    server.insert(QStringLiteral("TRANSPORT"), QStringLiteral("http"));
    server.insert(QStringLiteral("LEDGER"), m_dir->filePath(QStringLiteral("ledger.jsonl")));
    server.insert(QStringLiteral("REFUND_MODE"), QStringLiteral("hang"));
    m_server = std::make_unique<ListeningProcess>(QStringLiteral(VERITY_NODE),
                                                  QStringList{QStringLiteral("ledger-server.mjs")}, server,
                                                  QStringLiteral(VERITY_GUARD_JS));
    QVERIFY2(!m_server->url().isEmpty(), qPrintable(m_server->log()));
    m_guard = std::make_unique<ListeningProcess>(
            QStringLiteral(VERITY_BINARY),
            QStringList{QStringLiteral("guard"), QStringLiteral("--db"),
                        m_dir->filePath(QStringLiteral("desk.db")), QStringLiteral("--listen"),
                        QStringLiteral("127.0.0.1:0"), QStringLiteral("--upstream"), m_server->url()},
            environment());
    QVERIFY2(m_guard->url().endsWith(QLatin1String("/mcp")), qPrintable(m_guard->log()));
}

void GuardHttpTest::cleanup()
{
    m_guard.reset();
    m_server.reset();
}

void GuardHttpTest::aTimedOutRefundIsHeldOverHttp()
{
    GuardAgent agent(options(), environment());
    const json listed = agent.send({{"op", "list"}});
    QVERIFY2(listed.contains("tools") && listed["tools"].size() == 3,
             qPrintable(agent.log() + m_guard->log()));
    for (int i = 0; i < 2; ++i) {
        const json read =
                agent.call(QStringLiteral("get_order"), {{"order_id", "SU-1"}}, 5000, QStringLiteral("T-H"));
        QVERIFY2(resultText(read).contains(QLatin1String("delivered")), read.dump().c_str());
    }
    const json first =
            agent.call(QStringLiteral("issue_refund"), refundOf("SU-1", 4599), 1000, QStringLiteral("T-H"));
    QCOMPARE(first["error"].value("code", 0), -32001);
    const json retry =
            agent.call(QStringLiteral("issue_refund"), refundOf("SU-1", 4599), 1000, QStringLiteral("T-H"));
    QVERIFY2(resultIsError(retry), retry.dump().c_str());
    QVERIFY2(resultText(retry).startsWith(QLatin1String("NOT SENT.")), retry.dump().c_str());
    QVERIFY(agent.close());
    QCOMPARE(ledgerEntries(options().ledger, "refund").size(), 1);
    QCOMPARE(ledgerEntries(options().ledger, "read").size(), 2);
    QCOMPARE(escalationOpenCount(options().database), 1);
}

void GuardHttpTest::foreignHostsAndOriginsAreRefused()
{
    const QByteArray ping =
            QByteArray::fromStdString(json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "ping"}}.dump());
    const QList<QPair<QByteArray, QByteArray>> jsonPost{{"Content-Type", "application/json"},
                                                        {"Accept", "application/json, text/event-stream"}};
    QCOMPARE(statusOf(m_guard->url(), "POST",
                      jsonPost + QList<QPair<QByteArray, QByteArray>>{{"Host", "evil.example.com"}}, ping),
             403);
    QCOMPARE(statusOf(m_guard->url(), "POST",
                      jsonPost + QList<QPair<QByteArray, QByteArray>>{{"Origin", "https://evil.example.com"}},
                      ping),
             403);
    QCOMPARE(statusOf(QString(m_guard->url()).replace(QLatin1String("/mcp"), QLatin1String("/other")), "POST",
                      jsonPost, ping),
             404);
    QCOMPARE(statusOf(m_guard->url(), "PUT", jsonPost, ping), 405);
    // A body that only looks like an initialize is no reason to stop: it is answered, and so is the next.
    QVERIFY(statusOf(m_guard->url(), "POST", jsonPost, QByteArrayLiteral("[\"initialize\"]")) > 0);
    QCOMPARE(statusOf(m_guard->url(), "PUT", jsonPost, ping), 405);
}

void GuardHttpTest::aCallToAServerThatIsDownDidNotHappen()
{
    // Nothing listens on port 1 of loopback: the connection is refused, so nothing was delivered.
    const QString database = m_dir->filePath(QStringLiteral("down.db"));
    ListeningProcess guard(QStringLiteral(VERITY_BINARY),
                           {QStringLiteral("guard"), QStringLiteral("--db"), database,
                            QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"),
                            QStringLiteral("--upstream"), QStringLiteral("http://127.0.0.1:1/mcp")},
                           environment());
    QVERIFY2(guard.url().endsWith(QLatin1String("/mcp")), qPrintable(guard.log()));
    const json call{{"jsonrpc", "2.0"},
                    {"id", 1},
                    {"method", "tools/call"},
                    {"params",
                     {{"name", "issue_refund"},
                      {"arguments", refundOf("SU-31", 500)},
                      {"_meta", {{"conversationId", "T-DOWN"}}}}}};
    QNetworkAccessManager network;
    QNetworkRequest request{QUrl(guard.url())};
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setRawHeader("Accept", "application/json, text/event-stream");
    QNetworkReply *reply = network.post(request, QByteArray::fromStdString(call.dump()));
    QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 15000);
    QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    const QByteArray body = reply->readAll();
    reply->deleteLater();
    const json answered = json::parse(body.toStdString(), nullptr, false);
    QVERIFY2(answered.is_object() && answered["result"].value("isError", false), body.constData());
    QVERIFY2(body.contains("NOT SENT") && body.contains("could not be reached"), body.constData());

    // Recorded as not performed: nobody has to find out what became of it.
    Expected<std::unique_ptr<Store>> store = openStore(database);
    QVERIFY(store);
    QTRY_VERIFY_WITH_TIMEOUT(*(*store)->ticketIdByExtId(QStringLiteral("T-DOWN")), 10000);
    const qint64 ticket = **(*store)->ticketIdByExtId(QStringLiteral("T-DOWN"));
    QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                Expected<QList<TranscriptEntry>> entries = (*store)->transcript(ticket);
                return entries && !entries->isEmpty()
                        && entries->first().call.outcome == Outcome::NotPerformed;
            }(),
            10000);
    QCOMPARE(escalationOpenCount(database), 0);
}

QTEST_GUILESS_MAIN(GuardHttpTest)
#include "tst_guardhttp.moc"
