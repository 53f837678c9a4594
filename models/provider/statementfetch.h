#pragma once
// Reads the provider's side of a period over its API: every refund created in the period
// (GET /v1/refunds with created[gte] and created[lt], page by page), and for each seller
// account its balance (GET /v1/balance) and its balance transactions in the period
// (GET /v1/balance_transactions), with "Stripe-Account: <seller id>", several accounts at a
// time alongside the refunds' pages (which follow one cursor). All reads: retried on
// transport errors, 5xx and 429 like a lookup. Nothing is written anywhere: a provider that
// cannot be reached gives an error that says so, and the caller keeps what it had.

#include "domain/expected.h"
#include "domain/providerstatement.h"
#include "provider/providerclient.h"

#include <QObject>
#include <QStringList>

namespace verity {

struct StatementAnswer
{
    ProviderStatement statement; // complete when there is no error
    // Why not: "cannot reach http://127.0.0.1:9/: Connection refused", with its ProviderErrc
    // (Cancelled when the person stopped it).
    std::optional<Error> error;
    bool ok() const { return !error; }
};

class StatementFetch : public QObject
{
    Q_OBJECT

public:
    // `accounts`: the seller ids whose balances to read (the sellers Verity knows).
    StatementFetch(ProviderSettings settings, Period period, QStringList accounts, QObject *parent = nullptr);
    ~StatementFetch() override;

    void start();
    void cancel(); // finishes at once with ProviderErrc::Cancelled
    bool isFinished() const;
    const StatementAnswer &answer() const;

    // Blocks (a local event loop) until it finishes: the command line and tests.
    static StatementAnswer run(const ProviderSettings &settings, const Period &period,
                               const QStringList &accounts);

signals:
    void progress(const QString &step); // "refunds: page 3 (300 read)"
    void finished(const verity::StatementAnswer &answer);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace verity
