#include "reconcileprobe.h"

#include "benchmemory.h"
#include "finance/reconciliation.h"
#include "provider/statementfetch.h"
#include "sandbox/sandboxserver.h"
#include "sandbox/sandboxstate.h"
#include "store/store.h"
#include "store/storefactory.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QSet>
#include <QTemporaryDir>
#include <QTextStream>

namespace verity::bench {

namespace {

void figure(QTextStream &out, const char *name, double value)
{
    out << name << ' ' << QString::number(value, 'f', 2) << '\n';
    out.flush();
}

// The provider's side of `payouts`: every one refunded, except one in 500 it never got (ledger
// only), one in 1,000 for another amount, and one in 2,000 answered by a refund of its own that
// Verity never recorded (provider only).
Expected<void> seedProvider(SandboxState &state, const QList<LedgerPayout> &payouts)
{
    if (Expected<void> begun = state.begin(); !begun)
        return begun;
    QSet<QString> accounts;
    for (qsizetype i = 0; i < payouts.size(); ++i) {
        const LedgerPayout &payout = payouts.at(i);
        if (!accounts.contains(payout.sellerId)) {
            accounts.insert(payout.sellerId);
            Expected<bool> added = state.insertAccount(
                    {payout.sellerId, payout.sellerName, QStringLiteral("usd"), 1700000000}, 100000000,
                    1700000000);
            if (!added)
                return added.error();
        }
        const auto refund = [&](const QString &id, qint64 cents) -> Expected<void> {
            SandboxPayment payment{QStringLiteral("pi_%1_%2").arg(payout.orderId).arg(id),
                                   cents * 2,
                                   QStringLiteral("usd"),
                                   payout.sellerId,
                                   payout.at / 1000,
                                   {}};
            if (Expected<bool> paid = state.insertPayment(payment); !paid)
                return paid.error();
            SandboxRefund made;
            made.id = id;
            made.paymentIntent = payment.id;
            made.amount = cents;
            made.currency = QStringLiteral("usd");
            made.created = payout.at / 1000;
            made.metadata.insert(QStringLiteral("intent_key"), payout.intentKey);
            if (Expected<bool> done = state.insertRefund(made, payout.sellerId); !done)
                return done.error();
            return {};
        };
        if (i % 500 == 499)
            continue;
        const QString id = QStringLiteral("re_bench%1").arg(i);
        if (Expected<void> done = refund(id, payout.amountCents + (i % 1000 == 17 ? 100 : 0)); !done)
            return done;
        if (i % 2000 == 1234)
            if (Expected<void> done = refund(id + QStringLiteral("x"), payout.amountCents); !done)
                return done;
    }
    return state.commit();
}

} // namespace

int runReconcileProbe(int argc, char **argv, const QString &database, qint64 refunds)
{
    QCoreApplication app(argc, argv);
    QTextStream out(stdout);
    Expected<std::unique_ptr<Store>> store = openStore(database);
    if (!store) {
        out << "error " << store.message() << '\n';
        return 2;
    }
    // The first `refunds` payouts known performed, and the period that holds them.
    Expected<QList<LedgerPayout>> all = (*store)->payouts(0, std::numeric_limits<qint64>::max());
    if (!all) {
        out << "error " << all.message() << '\n';
        return 2;
    }
    QList<LedgerPayout> chosen;
    for (const LedgerPayout &payout : std::as_const(*all)) {
        if (payout.effect == PayoutEffect::Performed)
            chosen.append(payout);
        if (chosen.size() == refunds)
            break;
    }
    all->clear();
    if (chosen.isEmpty()) {
        out << "error no performed payouts to reconcile\n";
        return 2;
    }
    const Period period{chosen.constFirst().at / 1000 * 1000, (chosen.constLast().at / 1000 + 1) * 1000};

    QTemporaryDir folder;
    Expected<std::unique_ptr<SandboxState>> state = SandboxState::open(
            folder.filePath(QStringLiteral("sandbox.sqlite")), SandboxState::Durability::Throwaway);
    if (!state) {
        out << "error " << state.message() << '\n';
        return 2;
    }
    if (Expected<void> seeded = seedProvider(**state, chosen); !seeded) {
        out << "error " << seeded.message() << '\n';
        return 2;
    }
    SandboxServer server(**state, SandboxOptions{});
    if (Expected<quint16> port = server.listenLocal(0); !port) {
        out << "error " << port.message() << '\n';
        return 2;
    }

    QElapsedTimer total;
    total.start();
    QElapsedTimer step;
    step.start();
    Expected<QList<LedgerPayout>> payouts = (*store)->payouts(period.fromMs, period.toMs);
    Expected<QList<SellerBalance>> sellers =
            payouts ? (*store)->sellerBalances() : Expected<QList<SellerBalance>>(payouts.error());
    if (!sellers) {
        out << "error " << sellers.message() << '\n';
        return 2;
    }
    figure(out, "reconcile_ledger_ms", double(step.nsecsElapsed()) / 1e6);
    step.start();
    QStringList accounts;
    for (const SellerBalance &seller : std::as_const(*sellers))
        if (!seller.id.isEmpty())
            accounts << seller.id;
    ProviderSettings settings;
    settings.baseUrl = server.url();
    settings.apiKey = QStringLiteral("sk_test_sandbox");
    const StatementAnswer answer = StatementFetch::run(settings, period, accounts);
    if (!answer.ok()) {
        out << "error " << answer.error->message << '\n';
        return 2;
    }
    figure(out, "reconcile_fetch_ms", double(step.nsecsElapsed()) / 1e6);
    step.start();
    const Reconciliation result = reconcile(*payouts, answer.statement, *sellers, 0);
    figure(out, "reconcile_match_ms", double(step.nsecsElapsed()) / 1e6);
    figure(out, "reconcile_ms", double(total.nsecsElapsed()) / 1e6);
    figure(out, "reconcile_payouts", double(payouts->size()));
    figure(out, "reconcile_provider_refunds", double(answer.statement.refunds.size()));
    figure(out, "reconcile_matched", double(result.totals.count[std::size_t(ReconCategory::Matched)]));
    figure(out, "reconcile_unmatched",
           double(result.rows.size() - result.totals.count[std::size_t(ReconCategory::Matched)]));
    figure(out, "reconcile_rss_peak_mb", double(peakResidentKb()) / 1024.0);
    return 0;
}

} // namespace verity::bench
