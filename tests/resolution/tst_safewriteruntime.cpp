// The safe write runtime against the real sandbox server on loopback, with a real SQLite
// ledger: a ledger hit sends nothing; a clear answer is taken as it is; anything ambiguous is
// looked up before anything else; a lookup that cannot tell is Unknown, never NotPerformed.
// Then 200 random fault schedules: never a second refund for one intent key, never an
// unknown reported as not performed.
//
// Faults are injected server-wide (rate 1.0) by extra SandboxServers that share the one
// SandboxState of an InProcessSandbox: each "front" answers every refund POST with its fault
// and every lookup normally, and all of them see the same refunds and idempotency keys.

#include "provider/providerclient.h"
#include "provider/safewriteruntime.h"
#include "store/storefactory.h"
#include "support/inprocesssandbox.h"
#include "support/provider.h"

#include <QDateTime>
#include <QRandomGenerator>
#include <QSignalSpy>

#include <map>

using namespace verity;
using namespace verity::test;

namespace {

const QString seller = QStringLiteral("acct_shop");

// The form ProviderClient sends for `intent`, so a request made by hand carries the same
// parameters (the sandbox compares a key's parameters as a sorted set).
Form formOf(const RefundIntent &intent)
{
    Form form{{QStringLiteral("payment_intent"), intent.paymentIntent},
              {QStringLiteral("amount"), QString::number(intent.amountCents)}};
    if (!intent.reason.isEmpty())
        form.append({QStringLiteral("reason"), intent.reason});
    for (auto it = intent.metadata.cbegin(); it != intent.metadata.cend(); ++it)
        form.append({QStringLiteral("metadata[%1]").arg(it.key()), it.value()});
    form.append({QStringLiteral("metadata[intent_key]"), intent.intentKey});
    return form;
}

LedgerContext contextFor()
{
    return LedgerContext{std::nullopt, seller, QStringLiteral("runtime test")};
}

SafeWriteResult refundNow(SafeWriteRuntime &runtime, const RefundIntent &intent)
{
    SafeRefundOperation *operation = runtime.refund(intent, contextFor());
    const SafeWriteResult result = SafeWriteRuntime::waitFor(operation);
    operation->deleteLater();
    return result;
}

QString outcomeText(Outcome outcome)
{
    return outcomeId(outcome);
}

QString verdictText(const std::optional<LookupVerdict> &verdict)
{
    return verdict ? lookupVerdictId(*verdict) : QStringLiteral("none");
}

// Every refund at the provider that carries `key` in its metadata, read from its state.
qint64 refundsWithKey(InProcessSandbox &sandbox, const QString &paymentIntent, const QString &key)
{
    Expected<std::optional<SandboxPage<SandboxRefund>>> page =
            sandbox.state().refunds(paymentIntent, 100, QString());
    if (!page || !*page)
        return -1;
    qint64 count = 0;
    for (const SandboxRefund &refund : (*page)->items)
        count += refund.metadata.value(QStringLiteral("intent_key")) == key ? 1 : 0;
    return (*page)->hasMore ? -1 : count;
}

struct Ledger
{
    Ledger()
    {
        Expected<std::unique_ptr<Store>> opened = openStore(folder.filePath(QStringLiteral("ledger.sqlite")));
        if (!opened)
            qFatal("cannot open the ledger: %s", qPrintable(opened.message()));
        store = std::move(*opened);
    }
    std::optional<LedgerEntry> entry(const QString &key)
    {
        Expected<std::optional<LedgerEntry>> found = store->ledgerEntry(key);
        if (!found)
            qFatal("cannot read the ledger: %s", qPrintable(found.message()));
        return *found;
    }

    QTemporaryDir folder;
    std::unique_ptr<Store> store;
};

} // namespace

class TestSafeWriteRuntime : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void stalledPostIsLookedUpAndFoundOnce();
    void lookupImpossibleIsUnknownNeverNotPerformed_data();
    void lookupImpossibleIsUnknownNeverNotPerformed();
    void ledgerHitSendsNothing();
    void replayedKeyIsAlreadyPerformed();
    void clearAndAmbiguousAnswers_data();
    void clearAndAmbiguousAnswers();
    void randomFaultSchedules();
    void expiredKeyIsLookedUpRightBeforeThePost_data();
    void expiredKeyIsLookedUpRightBeforeThePost();
    void keyExpiryIsSaidInHours();

private:
    // The provider's side: a seller with $10,000.00 and payments of $50.00 made on demand.
    QString newPayment(qint64 amount = 5000);

    std::unique_ptr<InProcessSandbox> m_sandbox;
    std::unique_ptr<Ledger> m_ledger;
    int m_payments = 0;
};

void TestSafeWriteRuntime::init()
{
    m_sandbox = std::make_unique<InProcessSandbox>();
    m_ledger = std::make_unique<Ledger>();
    m_payments = 0;
    SandboxHttp http(m_sandbox->url());
    QCOMPARE(http.createAccount(seller, 1000000).status, 200);
}

void TestSafeWriteRuntime::cleanup()
{
    if (m_sandbox)
        QVERIFY(m_sandbox->drainHeldAnswers());
    m_ledger.reset();
    m_sandbox.reset();
}

void TestSafeWriteRuntime::expiredKeyIsLookedUpRightBeforeThePost_data()
{
    // Whether a refund with the key exists when the repeat starts, and what must follow.
    QTest::addColumn<bool>("alreadyThere");
    QTest::addColumn<bool>("providerGone");
    QTest::addColumn<QString>("outcome");
    QTest::addColumn<int>("posts");
    QTest::newRow("none there: looked up, then sent")
            << false << false << outcomeText(Outcome::Performed) << 1;
    QTest::newRow("there after all: nothing sent")
            << true << false << outcomeText(Outcome::AlreadyPerformed) << 0;
    QTest::newRow("cannot tell: nothing sent") << false << true << outcomeText(Outcome::Unknown) << 0;
}

void TestSafeWriteRuntime::expiredKeyIsLookedUpRightBeforeThePost()
{
    QFETCH(bool, alreadyThere);
    QFETCH(bool, providerGone);
    QFETCH(QString, outcome);
    QFETCH(int, posts);
    const QString payment = newPayment();
    const RefundIntent intent = intentFor(QStringLiteral("key-old"), 1200, payment);
    SandboxHttp http(m_sandbox->url());
    if (alreadyThere)
        QCOMPARE(http.post(QStringLiteral("/v1/refunds"), formOf(intent)).status, 200);
    const qint64 refundsBefore = m_sandbox->refundCount(payment);
    // The provider keeps keys 24 hours; this one was first sent 30 hours ago.
    ProviderSettings settings =
            settingsFor(providerGone ? QUrl(QStringLiteral("http://127.0.0.1:9")) : m_sandbox->url(), 300);
    ProviderClient client(settings);
    SafeWriteRuntime runtime(*m_ledger->store, client);
    LedgerContext context = contextFor();
    context.keyFirstSentMs = QDateTime::currentMSecsSinceEpoch() - 30LL * 3600 * 1000;
    SafeRefundOperation *operation = runtime.refund(intent, context);
    const SafeWriteResult result = SafeWriteRuntime::waitFor(operation);
    operation->deleteLater();

    QCOMPARE(outcomeText(result.outcome), outcome);
    QVERIFY2(result.note.startsWith(
                     QStringLiteral("the provider keeps idempotency keys for 24 hours and this one was "
                                    "first sent 30 hours ago")),
             qPrintable(result.note));
    // The lookup first, in the same action; then at most the one POST. Both are the evidence.
    QVERIFY(!result.exchanges.isEmpty());
    QVERIFY(result.exchanges.first().request.startsWith(QStringLiteral("GET ")));
    qsizetype sent = 0;
    for (const HttpExchange &exchange : result.exchanges)
        sent += exchange.request.startsWith(QStringLiteral("POST ")) ? 1 : 0;
    QCOMPARE(sent, qsizetype(posts));
    if (posts)
        QVERIFY(result.exchanges.last().request.startsWith(QStringLiteral("POST ")));
    if (!providerGone)
        QCOMPARE(m_sandbox->refundCount(payment), refundsBefore + posts);
    QCOMPARE(refundsWithKey(*m_sandbox, payment, intent.intentKey), alreadyThere || posts ? 1 : 0);
}

void TestSafeWriteRuntime::keyExpiryIsSaidInHours()
{
    ProviderSettings settings;
    const qint64 now = 1'780'000'000'000;
    QVERIFY(SafeWriteRuntime::keyExpiry(settings, std::nullopt, now).isEmpty());
    QVERIFY(SafeWriteRuntime::keyExpiry(settings, now - 23LL * 3600 * 1000, now).isEmpty());
    QCOMPARE(SafeWriteRuntime::keyExpiry(settings, now - 25LL * 3600 * 1000, now),
             QStringLiteral("the provider keeps idempotency keys for 24 hours and this one was first sent 25 "
                            "hours ago"));
    QCOMPARE(SafeWriteRuntime::keyExpiry(settings, now - 9LL * 24 * 3600 * 1000, now),
             QStringLiteral("the provider keeps idempotency keys for 24 hours and this one was first sent 9 "
                            "days ago"));
    settings.keyRetentionHours = 240; // another provider keeps them ten days
    QVERIFY(SafeWriteRuntime::keyExpiry(settings, now - 9LL * 24 * 3600 * 1000, now).isEmpty());
}

QString TestSafeWriteRuntime::newPayment(qint64 amount)
{
    const QString id = QStringLiteral("pi_order%1").arg(++m_payments);
    SandboxPayment payment;
    payment.id = id;
    payment.amount = amount;
    payment.currency = QStringLiteral("usd");
    payment.account = seller;
    payment.created = QDateTime::currentSecsSinceEpoch();
    Expected<bool> inserted = m_sandbox->state().insertPayment(payment);
    if (!inserted || !*inserted)
        qFatal("cannot make payment %s", qPrintable(id));
    return id;
}

void TestSafeWriteRuntime::stalledPostIsLookedUpAndFoundOnce()
{
    std::unique_ptr<SandboxServer> stalling = frontWith(*m_sandbox, QStringLiteral("accept-then-stall=1s"));
    ProviderClient client(settingsFor(stalling->url(), 300));
    SafeWriteRuntime runtime(*m_ledger->store, client);
    const QString payment = newPayment();
    const RefundIntent intent = intentFor(QStringLiteral("key-stalled"), 1200, payment);

    SafeRefundOperation *operation = runtime.refund(intent, contextFor());
    QSignalSpy progress(operation, &SafeRefundOperation::progress);
    const SafeWriteResult result = SafeWriteRuntime::waitFor(operation);
    operation->deleteLater();

    QCOMPARE(outcomeText(result.outcome), outcomeText(Outcome::Performed));
    QCOMPARE(verdictText(result.lookupVerdict), lookupVerdictId(LookupVerdict::Found));
    QVERIFY(result.refund);
    QCOMPARE(result.refund->intentKey, intent.intentKey);
    QCOMPARE(result.refund->amountCents, 1200);
    QVERIFY2(result.note.contains(QStringLiteral("timed out")), qPrintable(result.note));
    QVERIFY2(result.note.contains(result.refund->id), qPrintable(result.note));
    // The POST once, then nothing but reads: the lookup came before anything else.
    QVERIFY(result.exchanges.size() >= 2);
    QVERIFY(result.exchanges.first().request.startsWith(QStringLiteral("POST ")));
    for (qsizetype i = 1; i < result.exchanges.size(); ++i)
        QVERIFY2(result.exchanges.at(i).request.startsWith(QStringLiteral("GET ")),
                 qPrintable(result.exchanges.at(i).request));
    QVERIFY(!progress.isEmpty());

    // Exactly one refund, and it stays one after the held answer went out.
    QCOMPARE(refundsWithKey(*m_sandbox, payment, intent.intentKey), 1);
    QVERIFY(QTest::qWaitFor([&] { return stalling->heldAnswers() == 0; }, 5000));
    QCOMPARE(m_sandbox->refundCount(payment), 1);
    SandboxHttp http(m_sandbox->url());
    QCOMPARE(http.refundsOf(payment).size(), 1);

    const std::optional<LedgerEntry> entry = m_ledger->entry(intent.intentKey);
    QVERIFY(entry);
    QCOMPARE(entry->refundId, result.refund->id);
    QCOMPARE(entry->amountCents, 1200);
    QCOMPARE(entry->currency, QStringLiteral("USD"));
    QCOMPARE(entry->sellerId, seller);
    QCOMPARE(entry->source, QStringLiteral("runtime test"));
}

void TestSafeWriteRuntime::lookupImpossibleIsUnknownNeverNotPerformed_data()
{
    QTest::addColumn<QString>("fault");
    QTest::addColumn<int>("refundsAtProvider");
    QTest::newRow("accept-then-stall, provider gone") << QStringLiteral("accept-then-stall=1s") << 1;
    QTest::newRow("accept-then-500, provider gone") << QStringLiteral("accept-then-500") << 1;
    // Nothing was committed, but nobody can know that without a lookup.
    QTest::newRow("fail-before-accept=503, provider gone") << QStringLiteral("fail-before-accept=503") << 0;
}

void TestSafeWriteRuntime::lookupImpossibleIsUnknownNeverNotPerformed()
{
    QFETCH(QString, fault);
    QFETCH(int, refundsAtProvider);
    // The front answers the POST with its fault and is gone before the lookup starts: every
    // lookup attempt meets a closed port.
    std::unique_ptr<SandboxServer> front = frontWith(*m_sandbox, fault);
    ProviderClient client(settingsFor(front->url(), 300));
    SafeWriteRuntime runtime(*m_ledger->store, client);
    const QString payment = newPayment();
    const RefundIntent intent = intentFor(QStringLiteral("key-gone"), 1200, payment);

    SafeRefundOperation *operation = runtime.refund(intent, contextFor());
    bool destroyedBeforeLookup = false;
    connect(operation, &SafeRefundOperation::progress, this, [&](const QString &step) {
        if (front && step.contains(QStringLiteral("look"), Qt::CaseInsensitive)) {
            front.reset();
            destroyedBeforeLookup = true;
        }
    });
    const SafeWriteResult result = SafeWriteRuntime::waitFor(operation);
    operation->deleteLater();

    QVERIFY(destroyedBeforeLookup);
    QCOMPARE(outcomeText(result.outcome), outcomeText(Outcome::Unknown));
    QCOMPARE(verdictText(result.lookupVerdict), lookupVerdictId(LookupVerdict::CouldNotTell));
    QVERIFY2(result.note.contains(QStringLiteral("do not retry")), qPrintable(result.note));
    // One POST, then the lookup's attempts, all of them reads.
    QCOMPARE(result.exchanges.size(), 1 + 3);
    QVERIFY(result.exchanges.first().request.startsWith(QStringLiteral("POST ")));
    for (qsizetype i = 1; i < result.exchanges.size(); ++i)
        QVERIFY(result.exchanges.at(i).request.startsWith(QStringLiteral("GET ")));
    QCOMPARE(refundsWithKey(*m_sandbox, payment, intent.intentKey), refundsAtProvider);
    // Nobody knows, so nothing is recorded as paid.
    QVERIFY(!m_ledger->entry(intent.intentKey));
}

void TestSafeWriteRuntime::ledgerHitSendsNothing()
{
    const QString payment = newPayment();
    const RefundIntent intent = intentFor(QStringLiteral("key-in-ledger"), 1200, payment);
    QVERIFY(m_ledger->store->begin());
    Expected<bool> recorded = m_ledger->store->recordLedgerEntry(LedgerEntry{
            intent.intentKey, std::nullopt, QStringLiteral("re_earlier"), 1200, QStringLiteral("USD"), seller,
            QDateTime::currentMSecsSinceEpoch(), QStringLiteral("earlier run")});
    QVERIFY(recorded && *recorded);
    QVERIFY(m_ledger->store->commit());

    QSignalSpy served(&m_sandbox->server(), &SandboxServer::served);
    ProviderClient client(settingsFor(m_sandbox->url()));
    SafeWriteRuntime runtime(*m_ledger->store, client);
    const SafeWriteResult result = refundNow(runtime, intent);

    QCOMPARE(outcomeText(result.outcome), outcomeText(Outcome::AlreadyPerformed));
    QVERIFY(result.refund);
    QCOMPARE(result.refund->id, QStringLiteral("re_earlier"));
    QVERIFY(!result.lookupVerdict);
    QVERIFY(result.exchanges.isEmpty());
    QVERIFY2(result.note.contains(QStringLiteral("nothing was sent")), qPrintable(result.note));
    QTest::qWait(50);
    QCOMPARE(served.count(), 0);
    QCOMPARE(m_sandbox->refundCount(), 0);
}

void TestSafeWriteRuntime::replayedKeyIsAlreadyPerformed()
{
    const QString payment = newPayment();
    const RefundIntent intent = intentFor(QStringLiteral("key-sent-before"), 1200, payment);
    SandboxHttp http(m_sandbox->url());
    const HttpResult first = http.post(QStringLiteral("/v1/refunds"), formOf(intent),
                                       {{"Idempotency-Key", intent.intentKey.toUtf8()}});
    QCOMPARE(first.status, 200);
    const QString firstId = first.json.value(QStringLiteral("id")).toString();
    QVERIFY(!firstId.isEmpty());

    ProviderClient client(settingsFor(m_sandbox->url()));
    SafeWriteRuntime runtime(*m_ledger->store, client);
    const SafeWriteResult result = refundNow(runtime, intent);
    QCOMPARE(outcomeText(result.outcome), outcomeText(Outcome::AlreadyPerformed));
    QVERIFY(result.refund);
    QCOMPARE(result.refund->id, firstId);
    QVERIFY(!result.lookupVerdict);
    QCOMPARE(result.exchanges.size(), 1);
    QCOMPARE(m_sandbox->refundCount(payment), 1);
    const std::optional<LedgerEntry> entry = m_ledger->entry(intent.intentKey);
    QVERIFY(entry);
    QCOMPARE(entry->refundId, firstId);

    // Once in the ledger, a further run sends nothing at all.
    QSignalSpy served(&m_sandbox->server(), &SandboxServer::served);
    const SafeWriteResult again = refundNow(runtime, intent);
    QCOMPARE(outcomeText(again.outcome), outcomeText(Outcome::AlreadyPerformed));
    QVERIFY(again.exchanges.isEmpty());
    QCOMPARE(served.count(), 0);
    QCOMPARE(m_sandbox->refundCount(payment), 1);
}

void TestSafeWriteRuntime::clearAndAmbiguousAnswers_data()
{
    QTest::addColumn<QString>("fault");
    QTest::addColumn<QString>("outcome");
    QTest::addColumn<QString>("lookup"); // "none": no lookup was made
    QTest::addColumn<int>("refunds");

    const QString performed = outcomeId(Outcome::Performed);
    const QString notPerformed = outcomeId(Outcome::NotPerformed);
    const QString none = QStringLiteral("none");
    QTest::newRow("no fault") << QString() << performed << none << 1;
    for (int status : {400, 402, 404, 422, 429})
        QTest::addRow("fail-before-accept=%d is refused", status)
                << QStringLiteral("fail-before-accept=%1").arg(status) << notPerformed << none << 0;
    // A 409 is a conflict with another request that may still be running: a lookup that finds
    // nothing yet cannot say the write did not happen.
    QTest::newRow("fail-before-accept=409 stays unknown")
            << QStringLiteral("fail-before-accept=409") << outcomeId(Outcome::Unknown)
            << lookupVerdictId(LookupVerdict::NotFound) << 0;
    for (int status : {500, 502, 503, 504})
        QTest::addRow("fail-before-accept=%d is looked up", status)
                << QStringLiteral("fail-before-accept=%1").arg(status) << notPerformed
                << lookupVerdictId(LookupVerdict::NotFound) << 0;
    QTest::newRow("accept-then-500 is looked up")
            << QStringLiteral("accept-then-500") << performed << lookupVerdictId(LookupVerdict::Found) << 1;
}

void TestSafeWriteRuntime::clearAndAmbiguousAnswers()
{
    QFETCH(QString, fault);
    QFETCH(QString, outcome);
    QFETCH(QString, lookup);
    QFETCH(int, refunds);

    std::unique_ptr<SandboxServer> front = frontWith(*m_sandbox, fault);
    ProviderClient client(settingsFor(front->url(), 3000));
    SafeWriteRuntime runtime(*m_ledger->store, client);
    const QString payment = newPayment();
    const RefundIntent intent = intentFor(QStringLiteral("key-1"), 1200, payment);
    const SafeWriteResult result = refundNow(runtime, intent);

    QCOMPARE(outcomeText(result.outcome), outcome);
    QCOMPARE(verdictText(result.lookupVerdict), lookup);
    QCOMPARE(refundsWithKey(*m_sandbox, payment, intent.intentKey), refunds);
    QCOMPARE(m_sandbox->refundCount(payment), refunds);
    QCOMPARE(result.exchanges.size(), lookup == u"none" ? 1 : 2);
    QCOMPARE(bool(result.refund), refunds == 1);
    const std::optional<LedgerEntry> entry = m_ledger->entry(intent.intentKey);
    QCOMPARE(bool(entry), refunds == 1);
    if (entry)
        QCOMPARE(entry->refundId, result.refund->id);
}

void TestSafeWriteRuntime::randomFaultSchedules()
{
    // The fronts, one per fault, made as the schedules first need them; each with a client
    // and a runtime on the one ledger.
    struct Front
    {
        std::unique_ptr<SandboxServer> server;
        std::unique_ptr<ProviderClient> client;
        std::unique_ptr<SafeWriteRuntime> runtime;
    };
    std::map<QString, Front> fronts;
    auto runtimeFor = [&](const QString &fault) -> SafeWriteRuntime & {
        Front &front = fronts[fault];
        if (!front.server) {
            front.server = frontWith(*m_sandbox, fault);
            front.client = std::make_unique<ProviderClient>(settingsFor(front.server->url(), 200));
            front.runtime = std::make_unique<SafeWriteRuntime>(*m_ledger->store, *front.client);
        }
        return *front.runtime;
    };
    // A console with a ledger of its own, talking to the provider without faults.
    Ledger otherLedger;
    ProviderClient plainClient(settingsFor(m_sandbox->url(), 3000));
    SafeWriteRuntime otherConsole(*otherLedger.store, plainClient);

    QRandomGenerator random(20260317);
    const QList<int> &statuses = SandboxFault::failureStatuses();
    const QString gone = QStringLiteral("gone after ");
    auto drawFault = [&]() -> QString {
        const quint32 roll = random.bounded(100U);
        if (roll < 28)
            return QString(); // no fault
        if (roll < 36)
            return QStringLiteral("accept-then-stall=1s");
        if (roll < 56)
            return QStringLiteral("accept-then-500");
        if (roll < 62) {
            // The provider answers the POST with a fault, then cannot be reached for the lookup.
            static const char *const faults[] = {"accept-then-stall=1s", "accept-then-500",
                                                 "fail-before-accept=503"};
            return gone + QString::fromLatin1(faults[random.bounded(3U)]);
        }
        return QStringLiteral("fail-before-accept=%1")
                .arg(statuses.at(qsizetype(random.bounded(quint32(statuses.size())))));
    };
    // A front of its own for one attempt, gone as soon as the runtime turns to the lookup.
    auto refundThenGone = [&](const QString &fault, const RefundIntent &intent) {
        std::unique_ptr<SandboxServer> front = frontWith(*m_sandbox, fault);
        ProviderClient client(settingsFor(front->url(), 200));
        SafeWriteRuntime runtime(*m_ledger->store, client);
        SafeRefundOperation *operation = runtime.refund(intent, contextFor());
        connect(operation, &SafeRefundOperation::progress, this, [&front](const QString &step) {
            if (step.contains(QStringLiteral("look"), Qt::CaseInsensitive))
                front.reset();
        });
        const SafeWriteResult result = SafeWriteRuntime::waitFor(operation);
        delete operation;
        return result;
    };

    constexpr int schedules = 200;
    constexpr int maxRetries = 3;
    QHash<QString, int> outcomes;
    for (int n = 0; n < schedules; ++n) {
        const QString payment = newPayment();
        const RefundIntent intent =
                intentFor(QStringLiteral("sched-%1").arg(n), 100 + qint64(random.bounded(4900U)), payment);
        QStringList story;
        auto describe = [&] {
            return QStringLiteral("schedule %1 (%2): %3")
                    .arg(n)
                    .arg(payment, story.join(QStringLiteral("; ")));
        };

        std::optional<Outcome> last;
        for (int attempt = 0; attempt <= maxRetries; ++attempt) {
            // The contract: only a NotPerformed may be tried again, with the same key.
            if (last && *last != Outcome::NotPerformed)
                break;
            const QString fault = drawFault();
            const SafeWriteResult result = fault.startsWith(gone)
                    ? refundThenGone(fault.mid(gone.size()), intent)
                    : refundNow(runtimeFor(fault), intent);
            last = result.outcome;
            story << QStringLiteral("%1 -> %2 (lookup %3)")
                             .arg(fault.isEmpty() ? QStringLiteral("no fault") : fault,
                                  outcomeId(result.outcome), verdictText(result.lookupVerdict));
            const qint64 atProvider = refundsWithKey(*m_sandbox, payment, intent.intentKey);
            QVERIFY2(atProvider >= 0, qPrintable(describe()));
            QVERIFY2(atProvider <= 1,
                     qPrintable(QStringLiteral("a second refund for one intent key: ") + describe()));
            switch (result.outcome) {
            case Outcome::NotPerformed:
                QVERIFY2(atProvider == 0,
                         qPrintable(QStringLiteral("an unknown reported as not performed: ") + describe()));
                QVERIFY2(!m_ledger->entry(intent.intentKey), qPrintable(describe()));
                break;
            case Outcome::Performed:
            case Outcome::AlreadyPerformed: {
                QVERIFY2(atProvider == 1, qPrintable(describe()));
                QVERIFY2(result.refund, qPrintable(describe()));
                const std::optional<LedgerEntry> entry = m_ledger->entry(intent.intentKey);
                QVERIFY2(entry && entry->refundId == result.refund->id, qPrintable(describe()));
                break;
            }
            case Outcome::Unknown:
                QVERIFY2(!m_ledger->entry(intent.intentKey), qPrintable(describe()));
                break;
            }
        }
        outcomes[outcomeId(*last)] += 1;

        // Another console, without this ledger, repeats the intent anyway: the provider's key
        // makes it the same refund, or the first one if none was ever made.
        const SafeWriteResult repeat = refundNow(otherConsole, intent);
        story << QStringLiteral("other console -> %1").arg(outcomeId(repeat.outcome));
        QVERIFY2(refundsWithKey(*m_sandbox, payment, intent.intentKey) == 1, qPrintable(describe()));
        if (*last == Outcome::Performed || *last == Outcome::AlreadyPerformed)
            QVERIFY2(repeat.outcome == Outcome::AlreadyPerformed, qPrintable(describe()));
        else
            QVERIFY2(repeat.outcome == Outcome::Performed || repeat.outcome == Outcome::AlreadyPerformed,
                     qPrintable(describe()));
    }
    // The schedules did reach every branch the contract has.
    qInfo("final outcomes of %d schedules: performed %d, already performed %d, not performed %d, unknown %d",
          schedules, outcomes.value(outcomeId(Outcome::Performed)),
          outcomes.value(outcomeId(Outcome::AlreadyPerformed)),
          outcomes.value(outcomeId(Outcome::NotPerformed)), outcomes.value(outcomeId(Outcome::Unknown)));
    QVERIFY(outcomes.value(outcomeId(Outcome::Performed)) > 0);
    QVERIFY(outcomes.value(outcomeId(Outcome::NotPerformed)) > 0);
    QVERIFY(outcomes.value(outcomeId(Outcome::Unknown)) > 0);

    for (auto &[fault, front] : fronts)
        QVERIFY(QTest::qWaitFor([&front = front] { return front.server->heldAnswers() == 0; }, 5000));
    Expected<qint64> total = m_sandbox->state().countRefunds(QString());
    QVERIFY(total);
    QCOMPARE(*total, qint64(schedules));
}

QTEST_GUILESS_MAIN(TestSafeWriteRuntime)
#include "tst_safewriteruntime.moc"
