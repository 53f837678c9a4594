#pragma once
// The sandbox provider served from the test's own process, for every test that needs a
// provider (sandbox, provider client, statements, resolution, ...): a real sandbox server on
// 127.0.0.1 (port 0, state in a temporary folder), a plain HTTP client for it, and fronts
// that fail on cue.

#include "sandbox/sandboxfault.h"
#include "sandbox/sandboxserver.h"

#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUrlQuery>

#include <memory>

namespace verity::test {

using Headers = QList<std::pair<QByteArray, QByteArray>>;
using Form = QList<std::pair<QString, QString>>;

struct HttpResult
{
    int status = 0;
    QByteArray body;
    QJsonObject json;
    QHash<QByteArray, QByteArray> headers; // names in lower case
    QString transportError;

    QJsonObject error() const { return json.value(QStringLiteral("error")).toObject(); }
    QString errorField(const char *name) const { return error().value(QString::fromLatin1(name)).toString(); }
};

inline QByteArray encodeForm(const Form &form)
{
    QList<QByteArray> fields;
    for (const auto &[name, value] : form)
        fields.append(QUrl::toPercentEncoding(name) + '=' + QUrl::toPercentEncoding(value));
    return fields.join('&');
}

class SandboxHttp
{
public:
    explicit SandboxHttp(QUrl base, QString apiKey = QStringLiteral("sk_test_sandbox"))
        : m_base(std::move(base))
        , m_apiKey(std::move(apiKey))
    {}

    QNetworkReply *start(const QByteArray &method, const QString &path, const Form &form = {},
                         const Headers &headers = {}, bool authorize = true)
    {
        QUrl url = m_base;
        const qsizetype question = path.indexOf(u'?');
        url.setPath(question < 0 ? path : path.left(question));
        if (question >= 0)
            url.setQuery(path.mid(question + 1));
        QNetworkRequest request(url);
        request.setTransferTimeout(15000);
        if (authorize)
            request.setRawHeader("Authorization", "Bearer " + m_apiKey.toUtf8());
        for (const auto &[name, value] : headers)
            request.setRawHeader(name, value);
        if (method == "POST") {
            request.setHeader(QNetworkRequest::ContentTypeHeader,
                              QStringLiteral("application/x-www-form-urlencoded"));
            return m_network.post(request, encodeForm(form));
        }
        return m_network.sendCustomRequest(request, method);
    }

    static HttpResult finish(QNetworkReply *reply)
    {
        if (!reply->isFinished()) {
            QEventLoop loop;
            QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
            loop.exec();
        }
        HttpResult result;
        result.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        result.body = reply->readAll();
        result.json = QJsonDocument::fromJson(result.body).object();
        for (const auto &[name, value] : reply->rawHeaderPairs())
            result.headers.insert(name.toLower(), value);
        if (result.status == 0)
            result.transportError = reply->errorString();
        reply->deleteLater();
        return result;
    }

    HttpResult post(const QString &path, const Form &form, const Headers &headers = {})
    {
        return finish(start("POST", path, form, headers));
    }
    HttpResult get(const QString &path, const Headers &headers = {})
    {
        return finish(start("GET", path, {}, headers));
    }
    HttpResult getAnonymous(const QString &path) { return finish(start("GET", path, {}, {}, false)); }

    HttpResult createAccount(const QString &id, qint64 balance)
    {
        return post(QStringLiteral("/v1/accounts"),
                    {{QStringLiteral("id"), id},
                     {QStringLiteral("name"), id + QStringLiteral(" Ltd")},
                     {QStringLiteral("balance"), QString::number(balance)}});
    }
    HttpResult createPayment(const QString &id, qint64 amount, const QString &account)
    {
        return post(QStringLiteral("/v1/payment_intents"),
                    {{QStringLiteral("id"), id},
                     {QStringLiteral("amount"), QString::number(amount)},
                     {QStringLiteral("account"), account}});
    }
    qint64 balance(const QString &account)
    {
        const HttpResult result = get(QStringLiteral("/v1/balance"), {{"Stripe-Account", account.toUtf8()}});
        return result.json.value(QStringLiteral("available"))
                .toArray()
                .at(0)
                .toObject()
                .value(QStringLiteral("amount"))
                .toInteger();
    }
    QJsonArray refundsOf(const QString &paymentIntent)
    {
        return get(QStringLiteral("/v1/refunds?limit=100&payment_intent=") + paymentIntent)
                .json.value(QStringLiteral("data"))
                .toArray();
    }

private:
    QUrl m_base;
    QString m_apiKey;
    QNetworkAccessManager m_network;
};

// A sandbox server in this process; its state file lives as long as the object.
class InProcessSandbox
{
public:
    explicit InProcessSandbox(SandboxOptions options = {})
    {
        Expected<std::unique_ptr<SandboxState>> opened =
                SandboxState::open(m_folder.filePath(QStringLiteral("sandbox.sqlite")));
        if (!opened)
            qFatal("cannot open the sandbox state: %s", qPrintable(opened.message()));
        m_state = std::move(*opened);
        m_server = std::make_unique<SandboxServer>(*m_state, std::move(options));
        Expected<quint16> port = m_server->listenLocal(0);
        if (!port)
            qFatal("the sandbox cannot listen: %s", qPrintable(port.message()));
    }

    QUrl url() const { return m_server->url(); }
    SandboxState &state() { return *m_state; }
    SandboxServer &server() { return *m_server; }
    qint64 refundCount(const QString &paymentIntent = {})
    {
        Expected<qint64> count = m_state->countRefunds(paymentIntent);
        return count ? *count : -1;
    }
    qint64 recordCount(const QString &kind) // "pickup", "message"
    {
        Expected<qint64> count = m_state->countRecords(kind);
        return count ? *count : -1;
    }
    // Lets every held (stalled) answer go out, so no test leaves one behind.
    bool drainHeldAnswers(int timeoutMs = 10000)
    {
        return QTest::qWaitFor([this] { return m_server->heldAnswers() == 0; }, timeoutMs);
    }

private:
    QTemporaryDir m_folder;
    std::unique_ptr<SandboxState> m_state;
    std::unique_ptr<SandboxServer> m_server;
};

// Options under which every refund POST meets `fault` ("accept-then-500", ...; see
// SandboxFault::parse); no fault when it is empty.
inline SandboxOptions faulty(const QString &fault)
{
    SandboxOptions options;
    if (!fault.isEmpty()) {
        const std::optional<SandboxFault> parsed = SandboxFault::parse(fault);
        if (!parsed)
            qFatal("not a sandbox fault: %s", qPrintable(fault));
        options.faults = SandboxFaultPlan(1.0, *parsed, 7);
    }
    return options;
}

// Another server on the state of `sandbox`, every refund POST meeting `fault`; lookups are
// answered normally. For a provider that fails one request and then answers the truth.
inline std::unique_ptr<SandboxServer> frontWith(InProcessSandbox &sandbox, const QString &fault)
{
    auto server = std::make_unique<SandboxServer>(sandbox.state(), faulty(fault));
    Expected<quint16> port = server->listenLocal(0);
    if (!port)
        qFatal("the sandbox front cannot listen: %s", qPrintable(port.message()));
    return server;
}

// A seller with $100.00 (acct_shop) and a $50.00 payment (pi_order1) at the sandbox.
inline void setUpSeller(SandboxHttp &http)
{
    QCOMPARE(http.createAccount(QStringLiteral("acct_shop"), 10000).status, 200);
    QCOMPARE(http.createPayment(QStringLiteral("pi_order1"), 5000, QStringLiteral("acct_shop")).status, 200);
}

inline void setUpSeller(const QUrl &url)
{
    SandboxHttp http(url);
    setUpSeller(http);
}

} // namespace verity::test
