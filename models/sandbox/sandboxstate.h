#pragma once
// Everything the sandbox knows, in its own SQLite file: the payment provider's seller
// accounts, payments, refunds and balance movements, the courier's pickups and the messaging
// service's messages, and the stored responses of idempotency keys. A restart loses nothing.
// A write (a refund and its balance movement, a pickup, a message) and the response stored
// for its key are written in one transaction, so a crash never leaves a write without its key
// (or the reverse).

#include "domain/expected.h"

#include <QList>
#include <QMap>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>
#include <QVariant>

#include <limits>
#include <memory>
#include <optional>
#include <unordered_map>

namespace verity {

using SandboxMetadata = QMap<QString, QString>;

struct SandboxAccount
{
    QString id;
    QString name;
    QString currency; // lowercase, as Stripe writes it: "usd"
    qint64 created = 0; // unix seconds
};

struct SandboxPayment
{
    QString id;
    qint64 amount = 0;
    QString currency;
    QString account; // the seller whose balance its refunds debit
    qint64 created = 0;
    SandboxMetadata metadata;
    qint64 amountRefunded = 0; // filled in on reading
    // A direct charge lives on the seller's connected account and is seen only by a request
    // that names it (Stripe-Account); empty: the platform's payment (a destination charge).
    QString onAccount{};
    QString charge{}; // its charge, "ch_…"; empty on insert: derived from the id
};

struct SandboxRefund
{
    QString id;
    QString paymentIntent;
    qint64 amount = 0;
    QString currency;
    QString reason; // empty: none given
    QString status = QStringLiteral("succeeded");
    qint64 created = 0;
    SandboxMetadata metadata;
    QString balanceTransaction; // filled in on writing and reading
    QString charge{}; // the payment's charge
    QString onAccount{}; // the payment's: a direct charge's refunds are its account's own
};

struct SandboxBalanceTransaction
{
    QString id;
    QString account;
    qint64 amount = 0; // negative for money leaving the seller
    QString currency;
    QString type; // "refund", "adjustment"
    QString source;
    QString description;
    qint64 created = 0;
};

// A pickup at the courier or a message at the seller-messaging service: a record of a kind
// (SandboxRecordKind), listed by the order it is about.
struct SandboxRecord
{
    QString id;
    QString kind; // its object: "pickup", "message"
    QString order;
    QMap<QString, QString> fields; // the kind's own fields that it has ("item", "text", "status")
    qint64 created = 0; // unix seconds
    SandboxMetadata metadata;
};

// Stripe's created[gte], created[gt], created[lte] and created[lt] filters of a list, as one
// closed range of unix seconds (gt and lt are turned into gte and lte).
struct SandboxCreatedRange
{
    qint64 first = std::numeric_limits<qint64>::min();
    qint64 last = std::numeric_limits<qint64>::max();
};

template<typename T>
struct SandboxPage
{
    QList<T> items; // newest first
    bool hasMore = false;
};

// What an idempotency key answered the first time, replayed byte for byte.
struct StoredResponse
{
    QString requestHash;
    int status = 0;
    QByteArray body;
    qint64 createdMs = 0;
};

class SandboxState
{
public:
    // Durable: a refund the sandbox answered survives a power cut, as at a real provider.
    // Throwaway: a state deleted after one run (a simulation), written without waiting on the disk.
    enum class Durability { Durable, Throwaway };
    static Expected<std::unique_ptr<SandboxState>> open(const QString &path,
                                                        Durability durability = Durability::Durable);
    // sandbox.sqlite in the platform's application-data folder.
    static QString defaultLocation();
    ~SandboxState();
    SandboxState(const SandboxState &) = delete;
    SandboxState &operator=(const SandboxState &) = delete;

    QString location() const { return m_path; }

    Expected<void> begin();
    Expected<void> commit();
    void rollback();

    // ---- accounts and payments (false: the id exists; it is left as it was) ----
    // An opening balance becomes an "adjustment" movement, so a balance is always the sum
    // of its movements.
    Expected<bool> insertAccount(const SandboxAccount &account, qint64 openingBalance, qint64 balanceAsOf);
    Expected<std::optional<SandboxAccount>> account(const QString &id);
    Expected<bool> insertPayment(const SandboxPayment &payment);
    Expected<std::optional<SandboxPayment>> payment(const QString &id);
    Expected<std::optional<SandboxPayment>> paymentOfCharge(const QString &charge);
    // Payments on `onAccount` (empty: the platform's) whose metadata[key] is `value`, created no
    // later than `createdAtMost`, newest first, `limit` of them from `offset`; one more than
    // `limit` read tells whether more follow.
    Expected<SandboxPage<SandboxPayment>> searchPayments(const QString &key, const QString &value,
                                                         const QString &onAccount, qint64 createdAtMost,
                                                         int limit, int offset);

    // ---- refunds: each one debits the payment's seller with a balance movement ----
    Expected<bool> insertRefund(SandboxRefund &refund, const QString &account);
    Expected<std::optional<SandboxRefund>> refund(const QString &id);
    // Newest first; an empty payment intent lists all of `onAccount` (empty: the platform's own,
    // not the connected accounts' direct charges). nullopt: `startingAfter` is unknown.
    // The cursor may lie outside `created`: paging goes on from its place in the order.
    Expected<std::optional<SandboxPage<SandboxRefund>>> refunds(const QString &paymentIntent, int limit,
                                                                const QString &startingAfter,
                                                                const SandboxCreatedRange &created = {},
                                                                const QString &onAccount = {});
    Expected<qint64> countRefunds(const QString &paymentIntent);

    // ---- records: pickups and messages (false: the id exists; it is left as it was) ----
    Expected<bool> insertRecord(const SandboxRecord &record);
    Expected<std::optional<SandboxRecord>> record(const QString &kind, const QString &id);
    // Newest first, as refunds(); an empty order lists every record of the kind.
    Expected<std::optional<SandboxPage<SandboxRecord>>> records(const QString &kind, const QString &order,
                                                                int limit, const QString &startingAfter,
                                                                const SandboxCreatedRange &created = {});
    Expected<qint64> countRecords(const QString &kind);

    // ---- balances ----
    Expected<qint64> balance(const QString &account);
    Expected<std::optional<SandboxPage<SandboxBalanceTransaction>>>
    balanceTransactions(const QString &account, int limit, const QString &startingAfter,
                        const SandboxCreatedRange &created = {});

    // ---- idempotency keys ----
    // The response stored for `key`, unless it was stored before `notBeforeMs` (then it has
    // expired and is deleted: the key may be used afresh, as Stripe prunes keys after 24 h).
    Expected<std::optional<StoredResponse>> storedResponse(const QString &key, qint64 notBeforeMs);
    Expected<void> storeResponse(const QString &key, const StoredResponse &response);
    Expected<void> purgeResponses(qint64 notBeforeMs);

    // ---- small facts about the state itself ("demo_seed") ----
    Expected<QString> meta(const QString &name);
    Expected<void> setMeta(const QString &name, const QString &value);

private:
    SandboxState(QString path, QString connection);
    Expected<void> migrate();
    Expected<void> exec(QSqlQuery &query, const char *what);
    // The statement for `sql`, prepared once and kept: a list page or a refund costs a few
    // lookups, and preparing each statement again cost more than running it.
    QSqlQuery &prepare(const char *sql);

    // One page of a newest-first list: `sql` bound to `binds` and then to the keyset's bounds,
    // from after the row `cursorSql` finds for `startingAfter` and `cursorScope` (nullopt: it
    // finds none).
    struct ListQuery
    {
        QString startingAfter; // empty: from the top
        const char *cursorSql = nullptr; // SELECT created, seq ... WHERE id = ? [AND scope]
        QVariantList cursorScope;
        const char *sql = nullptr;
        QVariantList binds; // those before the keyset's
        SandboxCreatedRange created;
        int limit = 10;
        const char *what = ""; // "listing refunds", for an error
    };
    template<typename T>
    Expected<std::optional<SandboxPage<T>>> listPage(const ListQuery &list, T (*from)(const QSqlQuery &));

    QString m_path;
    QString m_connection;
    QSqlDatabase m_db;
    std::unordered_map<QByteArray, QSqlQuery> m_statements; // by their SQL
    std::optional<QSqlQuery> m_failed; // the last one that would not prepare, for its error

    // Ends a kept statement's result on leaving the scope: one left mid-result would hold the
    // connection's read snapshot open until its next use.
    class Finished
    {
    public:
        explicit Finished(QSqlQuery &query)
            : m_query(query)
        {}
        ~Finished() { m_query.finish(); }
        Finished(const Finished &) = delete;
        Finished &operator=(const Finished &) = delete;

    private:
        QSqlQuery &m_query;
    };
};

// Stable ids: "re_" + 24 random letters and digits for new objects, or derived from a seed
// so that seeding the same data twice gives the same ids.
QString randomSandboxId(const QString &prefix);
QString derivedSandboxId(const QString &prefix, const QString &seed);

} // namespace verity
