#include "simulationrun.h"

#include "domain/toolregistry.h"
#include "refundtools.h"
#include "sandbox/sandboxserver.h"
#include "store/storefactory.h"

#include <QDateTime>
#include <QEventLoop>
#include <QHostAddress>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTimer>
#include <QUrlQuery>

#include <memory>

namespace verity {

namespace {

QByteArray formBody(const QList<std::pair<QString, QString>> &fields)
{
    QList<QByteArray> parts;
    for (const auto &[name, value] : fields)
        parts.append(QUrl::toPercentEncoding(name) + '=' + QUrl::toPercentEncoding(value));
    return parts.join('&');
}

} // namespace

bool isLoopbackUrl(const QUrl &url)
{
    const QString host = url.host();
    if (host == u"localhost")
        return true;
    const QHostAddress address(host);
    return !address.isNull() && address.isLoopback();
}

SimulationRun::SimulationRun(SimulationSetup setup, QObject *parent)
    : QObject(parent)
    , m_setup(std::move(setup))
{
    m_result.policy = m_setup.policy;
    m_result.seed = m_setup.seed;
    m_result.faultRate = m_setup.faults.rate();
    m_result.sellers = m_setup.sellers;
}

SimulationRun::~SimulationRun()
{
    // Ticket runs and tools first: they hold replies to the sandbox and the ledger.
    const QList<QObject *> children = this->children();
    for (QObject *child : children)
        delete child;
    m_sandbox.reset();
    m_sandboxState.reset();
    m_ledger.reset();
}

Expected<SimulationResult> SimulationRun::result() const
{
    if (!m_error.isEmpty())
        return makeError(m_error);
    return m_result;
}

void SimulationRun::start()
{
    QTimer::singleShot(0, this, [this] { prepare(); });
}

void SimulationRun::prepare()
{
    if (!m_folder.isValid())
        return fail(QStringLiteral("cannot create a temporary folder for the run"));
    m_network = new QNetworkAccessManager(this);
    const bool own = m_setup.sandboxUrl.isEmpty();
    if (!own && !isLoopbackUrl(m_setup.sandboxUrl))
        return fail(
                QStringLiteral("the sandbox must be on this machine (127.0.0.1, ::1 or localhost); got %1")
                        .arg(m_setup.sandboxUrl.toString()));
    if (own) {
        if (Expected<void> started = startOwnSandbox(); !started)
            return fail(started.message());
    }

    ProviderSettings settings;
    settings.baseUrl = m_setup.sandboxUrl;
    settings.apiKey = m_setup.apiKey;
    settings.timeoutMs = m_setup.timing.clientTimeoutMs;
    settings.maxLookupAttempts = m_setup.timing.lookupAttempts;
    settings.backoffBaseMs = m_setup.timing.backoffBaseMs;
    settings.backoffCapMs = m_setup.timing.backoffCapMs;
    RefundTool *tool = nullptr;
    if (m_setup.policy == SimPolicy::AsShipped) {
        tool = new AsShippedRefundTool(settings, m_setup.seed, this);
    } else {
        Expected<std::unique_ptr<Store>> ledger =
                openStore(m_folder.filePath(QStringLiteral("ledger.sqlite")));
        if (!ledger)
            return fail(QStringLiteral("cannot open the runtime's ledger: %1").arg(ledger.message()));
        m_ledger = std::move(*ledger);
        tool = new IntentKeyRefundTool(settings, *m_ledger, ToolRegistry::builtIn(), this);
    }

    m_context.policy = m_setup.policy;
    m_context.faults = m_setup.faults;
    m_context.timing = m_setup.timing;
    m_context.sandboxUrl = m_setup.sandboxUrl;
    m_context.apiKey = m_setup.apiKey;
    m_context.seed = m_setup.seed;
    m_context.tool = tool;
    m_context.keepEvents = m_setup.keepEvents;

    if (own) {
        if (Expected<void> seeded = seedOwnSandbox(); !seeded)
            return fail(seeded.message());
        startTickets();
    } else {
        seedRemoteSandbox();
    }
}

Expected<void> SimulationRun::startOwnSandbox()
{
    const QString location = m_folder.filePath(QStringLiteral("sandbox.sqlite"));
    // Thrown away after the run: without an fsync per refund a large run takes seconds instead
    // of minutes, and no answer waits on the disk long enough to pass the compressed timeout.
    Expected<std::unique_ptr<SandboxState>> state =
            SandboxState::open(location, SandboxState::Durability::Throwaway);
    if (!state)
        return makeError(QStringLiteral("cannot open the sandbox's state: %1").arg(state.message()));
    m_sandboxState = std::move(*state);
    SandboxOptions options;
    options.apiKey = m_setup.apiKey;
    options.derivedRefundIds = true;
    m_sandbox = std::make_unique<SandboxServer>(*m_sandboxState, options);
    Expected<quint16> port = m_sandbox->listenLocal(0);
    if (!port)
        return makeError(QStringLiteral("the sandbox cannot listen: %1").arg(port.message()));
    m_setup.sandboxUrl = m_sandbox->url();
    return {};
}

Expected<void> SimulationRun::seedOwnSandbox()
{
    SandboxState &state = *m_sandboxState;
    if (Expected<void> begun = state.begin(); !begun)
        return begun;
    const auto failed = [&](const QString &what, const QString &message) -> Expected<void> {
        state.rollback();
        return makeError(QStringLiteral("cannot create %1 in the sandbox: %2").arg(what, message));
    };
    for (const SimSeller &seller : std::as_const(m_setup.sellers)) {
        const SandboxAccount account{seller.id, seller.name, QStringLiteral("usd"),
                                     seller.balanceAsOf / 1000};
        Expected<bool> inserted =
                state.insertAccount(account, seller.openingBalanceCents, seller.balanceAsOf);
        if (!inserted)
            return failed(seller.id, inserted.message());
    }
    for (const SimTicket &ticket : std::as_const(m_setup.tickets)) {
        SandboxPayment payment;
        payment.id = ticket.paymentIntent;
        payment.amount = ticket.paymentCents;
        payment.currency = ticket.currency.toLower();
        payment.account = ticket.seller.id;
        payment.created = ticket.openedAt / 1000;
        payment.metadata.insert(QStringLiteral("order_id"), ticket.orderId);
        Expected<bool> inserted = state.insertPayment(payment);
        if (!inserted)
            return failed(ticket.paymentIntent, inserted.message());
    }
    return state.commit();
}

void SimulationRun::seedRemoteSandbox()
{
    // Through the sandbox's own Stripe-shaped endpoints (POST /v1/accounts, POST
    // /v1/payment_intents), one at a time: a shared sandbox is for small runs and demos.
    auto requests = std::make_shared<QList<std::pair<QString, QByteArray>>>();
    for (const SimSeller &seller : std::as_const(m_setup.sellers)) {
        requests->append(
                {QStringLiteral("/v1/accounts"),
                 formBody({{QStringLiteral("id"), seller.id},
                           {QStringLiteral("name"), seller.name},
                           {QStringLiteral("balance"), QString::number(seller.openingBalanceCents)}})});
    }
    for (const SimTicket &ticket : std::as_const(m_setup.tickets)) {
        requests->append({QStringLiteral("/v1/payment_intents"),
                          formBody({{QStringLiteral("id"), ticket.paymentIntent},
                                    {QStringLiteral("amount"), QString::number(ticket.paymentCents)},
                                    {QStringLiteral("currency"), ticket.currency.toLower()},
                                    {QStringLiteral("account"), ticket.seller.id}})});
    }
    auto next = std::make_shared<std::function<void(qsizetype)>>();
    *next = [this, requests, next](qsizetype index) {
        if (index == requests->size()) {
            startTickets();
            return;
        }
        QUrl url = m_setup.sandboxUrl;
        QString path = url.path();
        while (path.endsWith(u'/'))
            path.chop(1);
        url.setPath(path + requests->at(index).first);
        QNetworkRequest request(url);
        request.setRawHeader("Authorization", QByteArrayLiteral("Bearer ") + m_setup.apiKey.toUtf8());
        request.setHeader(QNetworkRequest::ContentTypeHeader,
                          QStringLiteral("application/x-www-form-urlencoded"));
        request.setTransferTimeout(10000);
        QNetworkReply *reply = m_network->post(request, requests->at(index).second);
        connect(reply, &QNetworkReply::finished, this, [this, reply, index, next, requests] {
            reply->deleteLater();
            const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
            if (status != 200) {
                const QJsonObject error = QJsonDocument::fromJson(reply->readAll())
                                                  .object()
                                                  .value(QStringLiteral("error"))
                                                  .toObject();
                const QString why = status == 0
                        ? reply->errorString()
                        : QStringLiteral("HTTP %1 %2")
                                  .arg(status)
                                  .arg(error.value(QStringLiteral("message")).toString());
                fail(QStringLiteral("the sandbox at %1 did not create the run's %2: %3")
                             .arg(m_setup.sandboxUrl.toString(), requests->at(index).first, why));
                return;
            }
            (*next)(index + 1);
        });
    };
    (*next)(0);
}

void SimulationRun::startTickets()
{
    m_total = int(m_setup.tickets.size());
    m_result.tickets.resize(m_total);
    m_runs.resize(m_total);
    m_refunds.resize(m_total);
    if (!m_setup.keepEvents)
        m_postKeys.resize(m_total);
    for (const SimTicket &ticket : std::as_const(m_setup.tickets))
        m_ticketOfPayment.insert(ticket.paymentIntent, ticket.index);
    m_startedSeconds = QDateTime::currentSecsSinceEpoch() - 2;
    if (m_setup.tickets.isEmpty())
        return finish();
    for (int i = 0; i < qMax(1, m_setup.concurrency); ++i)
        launchNext();
}

void SimulationRun::launchNext()
{
    if (m_next >= m_total)
        return;
    // The run takes the ticket: once every ticket has its run, the setup's list goes, so a
    // large run does not hold each ticket twice.
    auto *run = new TicketRun(std::move(m_setup.tickets[m_next]), m_context, this);
    m_runs[m_next++] = run;
    if (m_next == m_total)
        m_setup.tickets = {};
    ++m_running;
    connect(run, &TicketRun::finished, this, [this, run] { ticketFinished(run); });
    run->start();
}

void SimulationRun::ticketFinished(TicketRun *run)
{
    if (!m_setup.keepEvents) {
        const int index = run->outcome().index;
        m_postKeys[index] = run->postKeys();
        m_result.tickets[index] = run->takeOutcome();
        m_runs[index] = nullptr;
        run->deleteLater(); // it is still emitting finished()
    }
    --m_running;
    ++m_done;
    emit progress(m_done, m_total);
    if (m_finished)
        return;
    if (m_done == m_total)
        return readProviderRefunds({});
    launchNext();
}

void SimulationRun::readProviderRefunds(const QString &startingAfter)
{
    // Every refund the provider made since the run began, 100 a page, newest first. One
    // listing of them all, not a lookup per payment: paging by cursor stays cheap however
    // many refunds the sandbox holds.
    QUrl url = m_setup.sandboxUrl;
    QString path = url.path();
    while (path.endsWith(u'/'))
        path.chop(1);
    url.setPath(path + QStringLiteral("/v1/refunds"));
    QUrlQuery query{{QStringLiteral("limit"), QStringLiteral("100")},
                    {QStringLiteral("created[gte]"), QString::number(m_startedSeconds)}};
    if (!startingAfter.isEmpty())
        query.addQueryItem(QStringLiteral("starting_after"), startingAfter);
    url.setQuery(query);
    QNetworkRequest request(url);
    request.setRawHeader("Authorization", QByteArrayLiteral("Bearer ") + m_setup.apiKey.toUtf8());
    request.setTransferTimeout(30000);
    QNetworkReply *reply = m_network->get(request);
    connect(reply, &QNetworkReply::finished, this, [this, reply] {
        reply->deleteLater();
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QJsonObject body = QJsonDocument::fromJson(reply->readAll()).object();
        if (status != 200)
            return fail(QStringLiteral("the provider's refunds could not be read (HTTP %1 %2)")
                                .arg(status)
                                .arg(body.value(QStringLiteral("error"))
                                             .toObject()
                                             .value(QStringLiteral("message"))
                                             .toString()));
        const QJsonArray data = body.value(QStringLiteral("data")).toArray();
        for (const QJsonValue &value : data) {
            const QJsonObject refund = value.toObject();
            const auto ticket =
                    m_ticketOfPayment.constFind(refund.value(QStringLiteral("payment_intent")).toString());
            if (ticket == m_ticketOfPayment.cend())
                continue;
            m_refunds[*ticket].append(AuditedRefund{refund.value(QStringLiteral("id")).toString(),
                                                    refund.value(QStringLiteral("amount")).toInteger(),
                                                    refund.value(QStringLiteral("metadata"))
                                                            .toObject()
                                                            .value(QStringLiteral("intent_key"))
                                                            .toString()});
        }
        if (body.value(QStringLiteral("has_more")).toBool() && !data.isEmpty())
            return readProviderRefunds(data.last().toObject().value(QStringLiteral("id")).toString());
        handOutRefunds();
    });
}

void SimulationRun::handOutRefunds()
{
    for (qsizetype i = 0; i < m_runs.size(); ++i) {
        if (!m_runs[i]) {
            TicketRun::orderByPosts(m_refunds[i], m_postKeys.at(i));
            m_result.tickets[i].refunds = std::move(m_refunds[i]);
            continue;
        }
        m_runs[i]->providerRefunds(std::move(m_refunds[i]));
        m_result.tickets[i] = m_runs[i]->takeOutcome();
        delete m_runs[i];
        m_runs[i] = nullptr;
    }
    finish();
}

void SimulationRun::fail(const QString &message)
{
    if (m_finished)
        return;
    m_error = message;
    finish();
}

void SimulationRun::finish()
{
    if (m_finished)
        return;
    m_finished = true;
    emit finished();
}

Expected<SimulationResult> runSimulation(SimulationSetup setup, const std::function<void(int, int)> &progress)
{
    SimulationRun run(std::move(setup));
    if (progress)
        QObject::connect(&run, &SimulationRun::progress, &run, progress);
    QEventLoop loop;
    QObject::connect(&run, &SimulationRun::finished, &loop, &QEventLoop::quit);
    run.start();
    loop.exec();
    return run.result();
}

} // namespace verity
