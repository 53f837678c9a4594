#include "livereceiver.h"

#include "collect/collectserver.h"
#include "domain/registrychoice.h"
#include "itemmodels/escalationqueuemodel.h"
#include "store/changefeed.h"
#include "store/storefactory.h"
#include "support/postgrescluster.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTextStream>
#include <QTimer>

#include <algorithm>
#include <csignal>
#include <memory>
#include <vector>

namespace verity::bench {

namespace {

// Spans of one request, made to look like an agent's: conversations of five tool spans each (an
// order read, a refund, a pickup, a message to the seller, the order read again), all answered,
// every id new, so that the receiver stores every span.
class RequestMaker
{
public:
    QByteArray make(int spans)
    {
        QByteArray out =
                R"({"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":)"
                R"({"stringValue":"support-agent"}}]},"scopeSpans":[{"scope":{"name":"agent"},"spans":[)";
        for (int i = 0; i < spans; ++i) {
            if (i % 5 == 0) {
                ++m_conversation;
                m_trace = hex(m_conversation, 32);
            }
            if (i > 0)
                out += ',';
            const QByteArray order = "BW-" + QByteArray::number(m_conversation);
            switch (i % 5) {
            case 0:
            case 4:
                out += span("get_order", R"({\"order_id\":\")" + order + R"(\"})",
                            R"({\"order_id\":\")" + order + R"(\",\"status\":\"delivered\"})", i);
                break;
            case 1:
                out += span("issue_refund",
                            R"({\"order_id\":\")" + order
                                    + R"(\",\"item_id\":\"LMP-2\",\"amount_cents\":4500})",
                            R"({\"refund_id\":\"re_)" + QByteArray::number(m_conversation)
                                    + R"(\",\"status\":\"succeeded\"})",
                            i);
                break;
            case 2:
                out += span("schedule_pickup", R"({\"order_id\":\")" + order + R"(\",\"item_id\":\"LMP-2\"})",
                            R"({\"pickup_id\":\"pk_1\",\"status\":\"scheduled\"})", i);
                break;
            default:
                out += span("message_seller", R"({\"seller_id\":\"brightwell\",\"text\":\"Refunded LMP-2\"})",
                            R"({\"message_id\":\"msg_1\",\"status\":\"sent\"})", i);
                break;
            }
        }
        out += "]}]}]}";
        return out;
    }

    // One refund that timed out, in a conversation of its own.
    QByteArray probe(int number)
    {
        ++m_conversation;
        m_trace = hex(m_conversation, 32);
        const QByteArray conversation = "probe-" + QByteArray::number(number);
        QByteArray out = R"({"resourceSpans":[{"scopeSpans":[{"spans":[)";
        out += R"({"traceId":")" + m_trace + R"(","spanId":")" + hex(++m_span, 16)
                + R"(","name":"execute_tool issue_refund","startTimeUnixNano":")" + nowNanos()
                + R"(","endTimeUnixNano":")" + nowNanos() + R"(","attributes":[)"
                + attribute("gen_ai.operation.name", "execute_tool") + ','
                + attribute("gen_ai.tool.name", "issue_refund") + ','
                + attribute("gen_ai.tool.call.id", "call_" + QByteArray::number(number)) + ','
                + attribute("gen_ai.conversation.id", conversation) + ','
                + attribute("gen_ai.tool.call.arguments",
                            R"({\"order_id\":\"PR-1\",\"item_id\":\"LMP-2\",\"amount_cents\":4500})")
                + ',' + attribute("error.type", "timeout")
                + R"(],"status":{"code":2,"message":"payments.internal did not answer within 30s"}})";
        out += "]}]}]}";
        return out;
    }

private:
    static QByteArray hex(quint64 value, int digits)
    {
        return QByteArray::number(value, 16).rightJustified(digits, '0');
    }
    static QByteArray nowNanos()
    {
        return QByteArray::number(QDateTime::currentMSecsSinceEpoch() * 1000000LL);
    }
    static QByteArray attribute(const char *key, const QByteArray &value)
    {
        return R"({"key":")" + QByteArray(key) + R"(","value":{"stringValue":")" + value + R"("}})";
    }
    QByteArray span(const char *tool, const QByteArray &arguments, const QByteArray &result, int index)
    {
        const QByteArray start = nowNanos();
        return R"({"traceId":")" + m_trace + R"(","spanId":")" + hex(++m_span, 16)
                + R"(","name":"execute_tool )" + tool + R"(","startTimeUnixNano":")" + start
                + R"(","endTimeUnixNano":")" + start + R"(","attributes":[)"
                + attribute("gen_ai.operation.name", "execute_tool") + ','
                + attribute("gen_ai.tool.name", tool) + ','
                + attribute("gen_ai.tool.call.id", "call_" + QByteArray::number(index)) + ','
                + attribute("gen_ai.conversation.id", "load-" + QByteArray::number(m_conversation)) + ','
                + attribute("gen_ai.tool.call.arguments", arguments) + ','
                + attribute("gen_ai.tool.call.result", result) + "]}";
    }

    quint64 m_conversation = 0;
    quint64 m_span = 0;
    QByteArray m_trace;
};

long residentKb(qint64 pid)
{
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly))
        return 0;
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toLong();
    }
    return 0;
}

double percentile(std::vector<double> values, double p)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const auto at =
            std::size_t(std::min<double>(double(values.size() - 1), p * double(values.size() - 1) + 0.5));
    return values[at];
}

struct Figures
{
    qint64 spans = 0;
    qint64 requests = 0;
    qint64 refusals = 0; // 429/503: sent again after the pause asked for
    qint64 failures = 0; // anything else: a bug, or a receiver gone
    double seconds = 0;
    std::vector<double> probeMs;
    std::vector<std::pair<int, long>> memory; // (second, resident kB)
    QString error;
};

// One backend's run: the receiver child, the senders, the probe and its console model.
Figures runOne(const QString &location, const LiveOptions &options)
{
    Figures figures;
    QProcess receiver;
    receiver.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    receiver.start(QCoreApplication::applicationFilePath(), {QStringLiteral("collect-child"), location});
    if (!receiver.waitForStarted() || !receiver.waitForReadyRead(30000)) {
        figures.error = QStringLiteral("the receiver did not start");
        return figures;
    }
    const QByteArray said = receiver.readLine().trimmed();
    if (!said.startsWith("port ")) {
        figures.error = QStringLiteral("the receiver said: %1").arg(QString::fromUtf8(said));
        return figures;
    }
    const QUrl url(QStringLiteral("http://127.0.0.1:%1/v1/traces").arg(QString::fromLatin1(said.mid(5))));

    // The console: its own connection, its feed, the escalation queue's model.
    Expected<std::unique_ptr<Store>> console = openStore(location);
    if (!console) {
        figures.error = console.message();
        return figures;
    }
    ChangeFeed *feed = (*console)->changeFeed();
    EscalationQueueModel queue(**console);
    queue.refresh();

    RequestMaker maker;
    QElapsedTimer clock;
    clock.start();
    const qint64 endMs = qint64(options.seconds) * 1000;
    const qint64 warmupMs = qMin<qint64>(5000, endMs / 10);
    qint64 countedFromMs = -1;
    std::vector<std::unique_ptr<QNetworkAccessManager>> networks;
    std::function<void(QNetworkAccessManager *, QByteArray)> send;
    int running = options.senders;
    send = [&](QNetworkAccessManager *network, QByteArray body) {
        if (clock.elapsed() >= endMs) {
            if (--running == 0)
                QCoreApplication::quit();
            return;
        }
        QNetworkRequest request(url);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        QNetworkReply *reply = network->post(request, body);
        QObject::connect(reply, &QNetworkReply::finished, network, [&, network, reply, body] {
            reply->deleteLater();
            const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
            const qint64 at = clock.elapsed();
            if (status == 200) {
                if (at >= warmupMs && at < endMs) {
                    if (countedFromMs < 0)
                        countedFromMs = at;
                    figures.spans += options.spansPerRequest;
                    ++figures.requests;
                }
                send(network, maker.make(options.spansPerRequest));
            } else if (status == 429 || status == 503) {
                ++figures.refusals;
                QTimer::singleShot(200, network, [&, network, body] { send(network, body); });
            } else {
                ++figures.failures;
                if (figures.error.isEmpty())
                    figures.error = QStringLiteral("HTTP %1: %2").arg(status).arg(reply->errorString());
                send(network, maker.make(options.spansPerRequest));
            }
        });
    };
    for (int i = 0; i < options.senders; ++i) {
        networks.push_back(std::make_unique<QNetworkAccessManager>());
        send(networks.back().get(), maker.make(options.spansPerRequest));
    }

    // The probe: one timed-out refund at a time; visible when the model counts it.
    QNetworkAccessManager probeNetwork;
    int probes = 0;
    qint64 probeSentMs = -1;
    std::function<void()> sendProbe = [&] {
        if (clock.elapsed() >= endMs - 3000)
            return;
        ++probes;
        probeSentMs = clock.elapsed();
        QNetworkRequest request(url);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        QNetworkReply *reply = probeNetwork.post(request, maker.probe(probes));
        QObject::connect(reply, &QNetworkReply::finished, reply, &QObject::deleteLater);
    };
    const auto seen = [&] {
        if (probeSentMs < 0 || queue.totalCount() < probes)
            return;
        figures.probeMs.push_back(double(clock.elapsed() - probeSentMs));
        probeSentMs = -1;
        // At a random moment: a fixed pause would keep each probe in one phase of the console's
        // half-second look at SQLite, and measure that phase only.
        QTimer::singleShot(100 + int(QRandomGenerator::global()->bounded(500)), &queue, sendProbe);
    };
    if (feed) {
        QObject::connect(feed, &ChangeFeed::changed, &queue, [&](StoreAreas areas) {
            if (areas & StoreArea::Escalations) {
                queue.refresh();
                seen();
            }
        });
    }
    QTimer::singleShot(int(warmupMs), &queue, sendProbe);

    QTimer memory;
    QObject::connect(&memory, &QTimer::timeout, &queue, [&] {
        figures.memory.emplace_back(int(clock.elapsed() / 1000), residentKb(receiver.processId()));
    });
    memory.start(qMax(1000, options.seconds * 1000 / 20));
    figures.memory.emplace_back(0, residentKb(receiver.processId()));

    QCoreApplication::exec();
    figures.seconds = double(clock.elapsed() - qMax<qint64>(countedFromMs, 0)) / 1000.0;
    figures.memory.emplace_back(int(clock.elapsed() / 1000), residentKb(receiver.processId()));
    receiver.terminate();
    receiver.waitForFinished(30000);
    return figures;
}

} // namespace

int runCollectChild(int argc, char **argv, const QString &location)
{
    QCoreApplication app(argc, argv);
    Expected<std::unique_ptr<Store>> store = openStore(location);
    const Expected<RegistryChoice> registries = chooseRegistry({QString(), QString()});
    if (!store || !registries) {
        QTextStream(stdout) << "error " << (!store ? store.message() : registries.message()) << "\n";
        return 2;
    }
    CollectServer server(**store, registries->selection, CollectOptions{});
    const Expected<quint16> port = server.listenOn(QHostAddress::LocalHost, 0);
    if (!port) {
        QTextStream(stdout) << "error " << port.message() << "\n";
        return 2;
    }
    QTextStream(stdout) << "port " << *port << Qt::endl;
    std::signal(SIGTERM, [](int) { std::_Exit(0); });
    return QCoreApplication::exec();
}

int runLiveBenchmark(const LiveOptions &options)
{
    QTextStream out(stdout);
    out << "live: " << options.senders << " senders, " << options.spansPerRequest
        << " spans a request (OTLP/JSON), " << options.seconds << " s a backend\n";
    bool missed = false;
    for (const QString &backend : options.backends) {
        QTemporaryDir folder;
        test::PostgresCluster cluster;
        QString location = folder.filePath(QStringLiteral("live.sqlite"));
        if (backend == QLatin1String("postgresql")) {
            if (!cluster.start()) {
                out << "live postgresql: " << cluster.error() << "\n";
                missed = true;
                continue;
            }
            location = cluster.createDatabase(QStringLiteral("live"));
        }
        // The schema is made before the clock starts.
        if (Expected<std::unique_ptr<Store>> made = openStore(location); !made) {
            out << "live " << backend << ": " << made.message() << "\n";
            missed = true;
            continue;
        }
        const Figures figures = runOne(location, options);
        const double rate = figures.seconds > 0 ? double(figures.spans) / figures.seconds : 0;
        const double p50 = percentile(figures.probeMs, 0.50);
        const double p99 = percentile(figures.probeMs, 0.99);
        long first = 0;
        long last = 0;
        long peak = 0;
        for (const auto &[second, kb] : figures.memory) {
            // The first samples are the receiver filling its caches; flat is judged after them.
            if (first == 0 && second >= options.seconds / 10)
                first = kb;
            last = kb;
            peak = std::max(peak, kb);
        }
        out << QStringLiteral("%1: %2 spans/s sustained (target 5000), %3 spans in %4 requests over %5 s; "
                              "%6 asked to wait, %7 failed\n")
                        .arg(backend)
                        .arg(rate, 0, 'f', 0)
                        .arg(figures.spans)
                        .arg(figures.requests)
                        .arg(figures.seconds, 0, 'f', 1)
                        .arg(figures.refusals)
                        .arg(figures.failures);
        out << QStringLiteral("%1: POST to the escalation counted by a console's model: p50 %2 ms, p99 %3 ms "
                              "(target 2000), %4 probes\n")
                        .arg(backend)
                        .arg(p50, 0, 'f', 0)
                        .arg(p99, 0, 'f', 0)
                        .arg(figures.probeMs.size());
        QStringList samples;
        for (const auto &[second, kb] : figures.memory)
            samples << QStringLiteral("%1s %2MB").arg(second).arg(double(kb) / 1024, 0, 'f', 1);
        out << QStringLiteral("%1: receiver memory %2\n").arg(backend, samples.join(QStringLiteral(", ")));
        out << QStringLiteral("%1: memory from %2 MB (after the first tenth) to %3 MB, peak %4 MB\n")
                        .arg(backend)
                        .arg(double(first) / 1024, 0, 'f', 1)
                        .arg(double(last) / 1024, 0, 'f', 1)
                        .arg(double(peak) / 1024, 0, 'f', 1);
        if (!figures.error.isEmpty())
            out << backend << ": " << figures.error << "\n";
        out.flush();
        missed = missed || rate < 5000 || p99 >= 2000 || figures.probeMs.empty() || figures.failures > 0
                || (first > 0 && last > first + first / 5);
    }
    return missed ? 1 : 0;
}

} // namespace verity::bench
