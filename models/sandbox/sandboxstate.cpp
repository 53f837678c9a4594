#include "sandboxstate.h"

#include "domain/sha256.h"
#include "store/sqlitefilelocks.h"

#include <QAtomicInteger>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QVariant>

#include <iterator>
#include <limits>
#include <vector>

namespace verity {

namespace {

// SQLite's own words ("file is not a database"), without the driver's "Unable to fetch row".
// The sandbox keeps its storage to itself, apart from Verity's store.
QString sqlErrorText(const QSqlError &error)
{
    return error.databaseText().isEmpty() ? error.text() : error.databaseText();
}

// The tables as version 1 made them: a state file of any version has them.
const char *const schema[] = {
        "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS accounts (id TEXT PRIMARY KEY, name TEXT NOT NULL, currency TEXT NOT "
        "NULL, "
        "created INTEGER NOT NULL)",
        "CREATE TABLE IF NOT EXISTS payment_intents (id TEXT PRIMARY KEY, amount INTEGER NOT NULL, "
        "currency TEXT NOT NULL, account TEXT NOT NULL REFERENCES accounts(id), created INTEGER NOT NULL, "
        "metadata TEXT NOT NULL)",
        // seq orders refunds made within the same second, newest last
        "CREATE TABLE IF NOT EXISTS refunds (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, "
        "payment_intent TEXT NOT NULL REFERENCES payment_intents(id), amount INTEGER NOT NULL, currency TEXT "
        "NOT NULL, "
        "reason TEXT, status TEXT NOT NULL, created INTEGER NOT NULL, metadata TEXT NOT NULL, "
        "balance_transaction TEXT NOT NULL)",
        "CREATE INDEX IF NOT EXISTS refunds_payment ON refunds(payment_intent, created, seq)",
        "CREATE INDEX IF NOT EXISTS refunds_created ON refunds(created, seq)",
        "CREATE TABLE IF NOT EXISTS balance_transactions (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
        "id TEXT NOT NULL UNIQUE, account TEXT NOT NULL REFERENCES accounts(id), amount INTEGER NOT NULL, "
        "currency TEXT NOT NULL, type TEXT NOT NULL, source TEXT NOT NULL, description TEXT NOT NULL, "
        "created INTEGER NOT NULL)",
        "CREATE INDEX IF NOT EXISTS balance_transactions_account ON balance_transactions(account, created, "
        "seq)",
        "CREATE TABLE IF NOT EXISTS idempotency_keys (key TEXT PRIMARY KEY, request_hash TEXT NOT NULL, "
        "status INTEGER NOT NULL, body BLOB NOT NULL, created_ms INTEGER NOT NULL)",
        "CREATE INDEX IF NOT EXISTS idempotency_keys_created ON idempotency_keys(created_ms)",
};

// Append only: each takes a state file from the version before it to its own, with all its
// statements in the one transaction; a released one is never edited.
const std::vector<std::vector<const char *>> upgrades = {
        // 2: a seller's balance is the sum of its movements; with the amounts in an index it is
        // read from the index alone, instead of one row of the table per movement
        {"CREATE INDEX IF NOT EXISTS balance_transactions_balance ON balance_transactions(account, amount)"},
        // 3: the courier's pickups and the messaging service's messages; seq orders records made
        // within the same second, as for refunds, and each index starts a list at its cursor
        {"CREATE TABLE IF NOT EXISTS records (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL "
         "UNIQUE, "
         "kind TEXT NOT NULL, order_id TEXT NOT NULL, fields TEXT NOT NULL, created INTEGER NOT NULL, "
         "metadata TEXT NOT NULL)",
         "CREATE INDEX IF NOT EXISTS records_order ON records(kind, order_id, created, seq)",
         "CREATE INDEX IF NOT EXISTS records_kind ON records(kind, created, seq)"},
        // 4: Stripe's charges and connected accounts: each payment has its charge, which its
        // refunds name too; a direct charge lives on a seller's account; payments are searched by
        // their metadata, newest first
        {"ALTER TABLE payment_intents ADD COLUMN charge TEXT",
         "ALTER TABLE payment_intents ADD COLUMN on_account TEXT NOT NULL DEFAULT ''",
         "UPDATE payment_intents SET charge = 'ch_' || CASE WHEN id LIKE 'pi\\_%' ESCAPE '\\' "
         "THEN substr(id, 4) ELSE id END",
         "CREATE UNIQUE INDEX IF NOT EXISTS payment_intents_charge ON payment_intents(charge)",
         "CREATE INDEX IF NOT EXISTS payment_intents_created ON payment_intents(on_account, created)",
         "ALTER TABLE refunds ADD COLUMN charge TEXT NOT NULL DEFAULT ''",
         "ALTER TABLE refunds ADD COLUMN on_account TEXT NOT NULL DEFAULT ''",
         "UPDATE refunds SET charge = (SELECT p.charge FROM payment_intents p WHERE p.id = "
         "refunds.payment_intent)"},
};

const int schemaVersion = 1 + int(upgrades.size());

QString nextConnectionName()
{
    static QAtomicInteger<int> counter;
    return QStringLiteral("verity-sandbox-%1").arg(counter.fetchAndAddRelaxed(1));
}

QString metadataText(const SandboxMetadata &metadata)
{
    QJsonObject object;
    for (auto it = metadata.cbegin(); it != metadata.cend(); ++it)
        object.insert(it.key(), it.value());
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

SandboxMetadata metadataFrom(const QString &text)
{
    SandboxMetadata metadata;
    const QJsonObject object = QJsonDocument::fromJson(text.toUtf8()).object();
    for (auto it = object.begin(); it != object.end(); ++it)
        metadata.insert(it.key(), it.value().toString());
    return metadata;
}

SandboxRefund refundFrom(const QSqlQuery &query)
{
    SandboxRefund refund;
    refund.id = query.value(0).toString();
    refund.paymentIntent = query.value(1).toString();
    refund.amount = query.value(2).toLongLong();
    refund.currency = query.value(3).toString();
    refund.reason = query.value(4).toString();
    refund.status = query.value(5).toString();
    refund.created = query.value(6).toLongLong();
    refund.metadata = metadataFrom(query.value(7).toString());
    refund.balanceTransaction = query.value(8).toString();
    refund.charge = query.value(9).toString();
    return refund;
}

SandboxBalanceTransaction transactionFrom(const QSqlQuery &query)
{
    SandboxBalanceTransaction transaction;
    transaction.id = query.value(0).toString();
    transaction.account = query.value(1).toString();
    transaction.amount = query.value(2).toLongLong();
    transaction.currency = query.value(3).toString();
    transaction.type = query.value(4).toString();
    transaction.source = query.value(5).toString();
    transaction.description = query.value(6).toString();
    transaction.created = query.value(7).toLongLong();
    return transaction;
}

// The columns after the payment's own: what its refunds that moved money took back.
#define PAYMENT_REFUNDED                                                                                     \
    "(SELECT COALESCE(SUM(r.amount), 0) FROM refunds r WHERE r.payment_intent = p.id "                       \
    "AND r.status IN ('succeeded', 'pending'))"

SandboxPayment paymentFrom(const QSqlQuery &query)
{
    SandboxPayment payment;
    payment.id = query.value(0).toString();
    payment.amount = query.value(1).toLongLong();
    payment.currency = query.value(2).toString();
    payment.account = query.value(3).toString();
    payment.created = query.value(4).toLongLong();
    payment.metadata = metadataFrom(query.value(5).toString());
    payment.onAccount = query.value(6).toString();
    payment.charge = query.value(7).toString();
    payment.amountRefunded = query.value(8).toLongLong();
    return payment;
}

// Qt binds a null QString as NULL; these columns hold '' for "none".
QVariant textNotNull(const QString &text)
{
    return text.isNull() ? QVariant(QStringLiteral("")) : QVariant(text);
}

// A payment's charge, as a payment made through the sandbox gets it: pi_X is charged as ch_X.
QString chargeOf(const QString &paymentId)
{
    return QStringLiteral("ch_")
            + (paymentId.startsWith(QStringLiteral("pi_")) ? paymentId.mid(3) : paymentId);
}

SandboxRecord recordFrom(const QSqlQuery &query)
{
    SandboxRecord record;
    record.id = query.value(0).toString();
    record.kind = query.value(1).toString();
    record.order = query.value(2).toString();
    record.fields = metadataFrom(query.value(3).toString()); // the same shape: names to text
    record.created = query.value(4).toLongLong();
    record.metadata = metadataFrom(query.value(5).toString());
    return record;
}

const QString idAlphabet = QStringLiteral("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");

// A list's keyset bound: the rows strictly after `startingAfter` (created, seq) in the
// newest-first order, within `range`. The newest `created` a row may have is the cursor's
// (or the range's end, whichever is older), so the index scan starts at the cursor instead of
// walking down from the range's end past every page already read.
struct Keyset
{
    qint64 first = 0;
    qint64 last = 0; // no row created after this
    qint64 lastSeq = 0; // rows created at `last` come before this seq
};

Keyset keysetAfter(const SandboxCreatedRange &range, std::optional<std::pair<qint64, qint64>> cursor)
{
    constexpr qint64 unbounded = std::numeric_limits<qint64>::max();
    if (!cursor || cursor->first > range.last)
        return Keyset{range.first, range.last, unbounded};
    return Keyset{range.first, cursor->first, cursor->second};
}

void bindKeyset(QSqlQuery &query, const Keyset &keyset, int limit)
{
    query.addBindValue(keyset.first);
    query.addBindValue(keyset.last);
    query.addBindValue(keyset.last);
    query.addBindValue(keyset.lastSeq);
    query.addBindValue(limit + 1); // one more tells whether more follow
}

} // namespace

QString randomSandboxId(const QString &prefix)
{
    QString id = prefix;
    for (int i = 0; i < 24; ++i)
        id += idAlphabet.at(int(QRandomGenerator::global()->bounded(quint32(idAlphabet.size()))));
    return id;
}

// The demo generator repeats this (sandbox_id in resources/demo/generate-demo.py), and
// tests/data/sandbox-ids.json holds ids both must give.
QString derivedSandboxId(const QString &prefix, const QString &seed)
{
    const QByteArray digest = QByteArray::fromHex(sha256Hex(seed.toUtf8()));
    QString id = prefix;
    for (int i = 0; i < 24; ++i)
        id += idAlphabet.at(int(quint8(digest.at(i)) % quint32(idAlphabet.size())));
    return id;
}

SandboxState::SandboxState(QString path, QString connection)
    : m_path(std::move(path))
    , m_connection(std::move(connection))
{}

SandboxState::~SandboxState()
{
    m_statements.clear(); // they hold the connection
    m_failed.reset();
    m_db.close();
    m_db = QSqlDatabase();
    QSqlDatabase::removeDatabase(m_connection);
}

QString SandboxState::defaultLocation()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
            + QStringLiteral("/sandbox.sqlite");
}

Expected<std::unique_ptr<SandboxState>> SandboxState::open(const QString &path, Durability durability)
{
    if (Expected<void> locks = useDescriptionLocksForSqlite(); !locks)
        return inContext(path, locks.error());
    const QFileInfo info(path);
    if (!QDir().mkpath(info.absolutePath()))
        return makeError(QStringLiteral("%1: cannot create the folder %2").arg(path, info.absolutePath()));
    std::unique_ptr<SandboxState> state(new SandboxState(info.absoluteFilePath(), nextConnectionName()));
    state->m_db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), state->m_connection);
    if (!state->m_db.isValid())
        return makeError(QStringLiteral("the Qt SQLite driver (QSQLITE) is not installed"));
    state->m_db.setDatabaseName(state->m_path);
    state->m_db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
    if (!state->m_db.open())
        return makeError(QStringLiteral("%1: cannot open the sandbox state: %2")
                                 .arg(path, sqlErrorText(state->m_db.lastError())));
    const char *sync =
            durability == Durability::Durable ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = OFF";
    for (const char *pragma : {"PRAGMA journal_mode = WAL", "PRAGMA foreign_keys = ON", sync}) {
        QSqlQuery query(state->m_db);
        if (!query.exec(QString::fromLatin1(pragma)))
            return makeError(QStringLiteral("%1: not a usable SQLite database (%2)")
                                     .arg(path, sqlErrorText(query.lastError())));
    }
    if (Expected<void> migrated = state->migrate(); !migrated)
        return makeError(QStringLiteral("%1: %2").arg(path, migrated.message()));
    return state;
}

Expected<void> SandboxState::migrate()
{
    if (Expected<void> started = begin(); !started)
        return started;
    for (const char *sql : schema) {
        QSqlQuery query(m_db);
        if (!query.exec(QString::fromLatin1(sql))) {
            rollback();
            return makeError(
                    QStringLiteral("not a sandbox state file (%1)").arg(sqlErrorText(query.lastError())));
        }
    }
    Expected<QString> version = meta(QStringLiteral("schema_version"));
    if (!version) {
        rollback();
        return version.error();
    }
    const int from = version->isEmpty() ? 1 : version->toInt(); // a new file has just been given version 1
    if (from > schemaVersion) {
        rollback();
        return makeError(QStringLiteral("written by a newer Verity (sandbox schema %1; this one knows %2)")
                                 .arg(*version)
                                 .arg(schemaVersion));
    }
    for (int to = from + 1; to <= schemaVersion; ++to) {
        for (const char *sql : upgrades[std::size_t(to - 2)]) {
            QSqlQuery query(m_db);
            if (!query.exec(QString::fromLatin1(sql))) {
                rollback();
                return makeError(QStringLiteral("cannot bring the sandbox state to schema %1: %2")
                                         .arg(to)
                                         .arg(sqlErrorText(query.lastError())));
            }
        }
    }
    if (Expected<void> set = setMeta(QStringLiteral("schema_version"), QString::number(schemaVersion));
        !set) {
        rollback();
        return set;
    }
    return commit();
}

QSqlQuery &SandboxState::prepare(const char *sql)
{
    const QByteArray key = QByteArray::fromRawData(sql, qsizetype(qstrlen(sql)));
    if (const auto kept = m_statements.find(key); kept != m_statements.end())
        return kept->second;
    QSqlQuery query(m_db);
    query.setForwardOnly(true);
    // One that fails to prepare is not kept: exec reports its error, and the next use tries again.
    if (!query.prepare(QString::fromLatin1(sql)))
        return m_failed.emplace(std::move(query));
    return m_statements.emplace(QByteArray(sql), std::move(query)).first->second;
}

Expected<void> SandboxState::exec(QSqlQuery &query, const char *what)
{
    if (!query.exec())
        return makeError(QStringLiteral("%1: %2 failed: %3")
                                 .arg(m_path, QString::fromLatin1(what), sqlErrorText(query.lastError())));
    return {};
}

Expected<void> SandboxState::begin()
{
    QSqlQuery &query = prepare("BEGIN IMMEDIATE");
    const Finished queryDone(query);
    return exec(query, "beginning a transaction");
}

Expected<void> SandboxState::commit()
{
    QSqlQuery &query = prepare("COMMIT");
    const Finished queryDone(query);
    return exec(query, "committing");
}

void SandboxState::rollback()
{
    QSqlQuery &query = prepare("ROLLBACK");
    const Finished queryDone(query);
    query.exec();
}

Expected<bool> SandboxState::insertAccount(const SandboxAccount &account, qint64 openingBalance,
                                           qint64 balanceAsOf)
{
    QSqlQuery &insert = prepare("INSERT INTO accounts (id, name, currency, created) VALUES (?, ?, ?, ?) "
                                "ON CONFLICT (id) DO NOTHING");
    const Finished insertDone(insert);
    insert.addBindValue(account.id);
    insert.addBindValue(account.name);
    insert.addBindValue(account.currency);
    insert.addBindValue(account.created);
    if (Expected<void> done = exec(insert, "recording an account"); !done)
        return done.error();
    if (insert.numRowsAffected() == 0)
        return false;
    if (openingBalance != 0) {
        QSqlQuery &movement =
                prepare("INSERT INTO balance_transactions (id, account, amount, currency, type, source, "
                        "description, created) VALUES (?, ?, ?, ?, 'adjustment', ?, 'Opening balance', ?)");
        const Finished movementDone(movement);
        movement.addBindValue(
                derivedSandboxId(QStringLiteral("txn_"), QStringLiteral("opening|") + account.id));
        movement.addBindValue(account.id);
        movement.addBindValue(openingBalance);
        movement.addBindValue(account.currency);
        movement.addBindValue(account.id);
        movement.addBindValue(balanceAsOf);
        if (Expected<void> done = exec(movement, "recording an opening balance"); !done)
            return done.error();
    }
    return true;
}

Expected<std::optional<SandboxAccount>> SandboxState::account(const QString &id)
{
    QSqlQuery &query = prepare("SELECT id, name, currency, created FROM accounts WHERE id = ?");
    const Finished queryDone(query);
    query.addBindValue(id);
    if (Expected<void> done = exec(query, "reading an account"); !done)
        return done.error();
    if (!query.next())
        return std::optional<SandboxAccount>();
    return std::optional<SandboxAccount>(SandboxAccount{query.value(0).toString(), query.value(1).toString(),
                                                        query.value(2).toString(),
                                                        query.value(3).toLongLong()});
}

Expected<bool> SandboxState::insertPayment(const SandboxPayment &payment)
{
    QSqlQuery &insert =
            prepare("INSERT INTO payment_intents (id, amount, currency, account, created, metadata, "
                    "on_account, charge) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING");
    const Finished insertDone(insert);
    insert.addBindValue(payment.id);
    insert.addBindValue(payment.amount);
    insert.addBindValue(payment.currency);
    insert.addBindValue(payment.account);
    insert.addBindValue(payment.created);
    insert.addBindValue(metadataText(payment.metadata));
    insert.addBindValue(textNotNull(payment.onAccount));
    insert.addBindValue(payment.charge.isEmpty() ? chargeOf(payment.id) : payment.charge);
    if (Expected<void> done = exec(insert, "recording a payment"); !done)
        return done.error();
    return insert.numRowsAffected() > 0;
}

Expected<std::optional<SandboxPayment>> SandboxState::payment(const QString &id)
{
    QSqlQuery &query = prepare("SELECT p.id, p.amount, p.currency, p.account, p.created, p.metadata, "
                               "p.on_account, p.charge, " PAYMENT_REFUNDED " FROM payment_intents p "
                               "WHERE p.id = ?");
    const Finished queryDone(query);
    query.addBindValue(id);
    if (Expected<void> done = exec(query, "reading a payment"); !done)
        return done.error();
    if (!query.next())
        return std::optional<SandboxPayment>();
    return std::optional<SandboxPayment>(paymentFrom(query));
}

Expected<std::optional<SandboxPayment>> SandboxState::paymentOfCharge(const QString &charge)
{
    QSqlQuery &query = prepare("SELECT p.id, p.amount, p.currency, p.account, p.created, p.metadata, "
                               "p.on_account, p.charge, " PAYMENT_REFUNDED " FROM payment_intents p "
                               "WHERE p.charge = ?");
    const Finished queryDone(query);
    query.addBindValue(charge);
    if (Expected<void> done = exec(query, "reading a charge"); !done)
        return done.error();
    if (!query.next())
        return std::optional<SandboxPayment>();
    return std::optional<SandboxPayment>(paymentFrom(query));
}

Expected<SandboxPage<SandboxPayment>> SandboxState::searchPayments(const QString &key, const QString &value,
                                                                   const QString &onAccount,
                                                                   qint64 createdAtMost, int limit,
                                                                   int offset)
{
    // A search reads every payment of the account; a sandbox holds few enough for that.
    QSqlQuery &query = prepare("SELECT p.id, p.amount, p.currency, p.account, p.created, p.metadata, "
                               "p.on_account, p.charge, " PAYMENT_REFUNDED " FROM payment_intents p "
                               "WHERE p.on_account = ? AND p.created <= ? "
                               "AND json_extract(p.metadata, '$.\"' || ? || '\"') = ? "
                               "ORDER BY p.created DESC, p.rowid DESC LIMIT ? OFFSET ?");
    const Finished queryDone(query);
    query.addBindValue(textNotNull(onAccount));
    query.addBindValue(createdAtMost);
    query.addBindValue(key);
    query.addBindValue(value);
    query.addBindValue(limit + 1);
    query.addBindValue(offset);
    if (Expected<void> done = exec(query, "searching payments"); !done)
        return done.error();
    SandboxPage<SandboxPayment> page;
    while (query.next()) {
        if (page.items.size() == limit) {
            page.hasMore = true;
            break;
        }
        page.items.append(paymentFrom(query));
    }
    return page;
}

Expected<bool> SandboxState::insertRefund(SandboxRefund &refund, const QString &account)
{
    refund.balanceTransaction =
            derivedSandboxId(QStringLiteral("txn_"), QStringLiteral("refund|") + refund.id);
    QSqlQuery &insert = prepare(
            "INSERT INTO refunds (id, payment_intent, amount, currency, reason, status, created, "
            "metadata, balance_transaction, charge, on_account) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (id) DO NOTHING");
    const Finished insertDone(insert);
    insert.addBindValue(refund.id);
    insert.addBindValue(refund.paymentIntent);
    insert.addBindValue(refund.amount);
    insert.addBindValue(refund.currency);
    insert.addBindValue(refund.reason.isEmpty() ? QVariant(QMetaType::fromType<QString>())
                                                : QVariant(refund.reason));
    insert.addBindValue(refund.status);
    insert.addBindValue(refund.created);
    insert.addBindValue(metadataText(refund.metadata));
    insert.addBindValue(refund.balanceTransaction);
    insert.addBindValue(textNotNull(refund.charge));
    insert.addBindValue(textNotNull(refund.onAccount));
    if (Expected<void> done = exec(insert, "recording a refund"); !done)
        return done.error();
    if (insert.numRowsAffected() == 0)
        return false;
    QSqlQuery &movement =
            prepare("INSERT INTO balance_transactions (id, account, amount, currency, type, source, "
                    "description, created) VALUES (?, ?, ?, ?, 'refund', ?, ?, ?)");
    const Finished movementDone(movement);
    movement.addBindValue(refund.balanceTransaction);
    movement.addBindValue(account);
    movement.addBindValue(-refund.amount);
    movement.addBindValue(refund.currency);
    movement.addBindValue(refund.id);
    movement.addBindValue(QStringLiteral("Refund for %1").arg(refund.paymentIntent));
    movement.addBindValue(refund.created);
    if (Expected<void> done = exec(movement, "debiting the seller"); !done)
        return done.error();
    return true;
}

Expected<std::optional<SandboxRefund>> SandboxState::refund(const QString &id)
{
    QSqlQuery &query =
            prepare("SELECT id, payment_intent, amount, currency, reason, status, created, metadata, "
                    "balance_transaction, charge FROM refunds WHERE id = ?");
    const Finished queryDone(query);
    query.addBindValue(id);
    if (Expected<void> done = exec(query, "reading a refund"); !done)
        return done.error();
    if (!query.next())
        return std::optional<SandboxRefund>();
    return std::optional<SandboxRefund>(refundFrom(query));
}

template<typename T>
Expected<std::optional<SandboxPage<T>>> SandboxState::listPage(const ListQuery &list,
                                                               T (*from)(const QSqlQuery &))
{
    // The cursor is the position of a row in the newest-first order: (created, seq).
    std::optional<std::pair<qint64, qint64>> position;
    if (!list.startingAfter.isEmpty()) {
        QSqlQuery &cursor = prepare(list.cursorSql);
        const Finished cursorDone(cursor);
        cursor.addBindValue(list.startingAfter);
        for (const QVariant &value : list.cursorScope)
            cursor.addBindValue(value);
        if (Expected<void> done = exec(cursor, "reading a cursor"); !done)
            return done.error();
        if (!cursor.next())
            return std::optional<SandboxPage<T>>();
        position.emplace(cursor.value(0).toLongLong(), cursor.value(1).toLongLong());
    }
    QSqlQuery &query = prepare(list.sql);
    const Finished queryDone(query);
    for (const QVariant &value : list.binds)
        query.addBindValue(value);
    bindKeyset(query, keysetAfter(list.created, position), list.limit);
    if (Expected<void> done = exec(query, list.what); !done)
        return done.error();
    SandboxPage<T> page;
    while (query.next()) {
        if (page.items.size() == list.limit) {
            page.hasMore = true;
            break;
        }
        page.items.append(from(query));
    }
    return std::optional<SandboxPage<T>>(page);
}

Expected<std::optional<SandboxPage<SandboxRefund>>>
SandboxState::refunds(const QString &paymentIntent, int limit, const QString &startingAfter,
                      const SandboxCreatedRange &createdRange, const QString &onAccount)
{
    ListQuery list{startingAfter,
                   "SELECT created, seq FROM refunds WHERE id = ?",
                   {},
                   nullptr,
                   {},
                   createdRange,
                   limit,
                   "listing refunds"};
    // Two statements rather than one with an optional filter: each has an index that starts
    // at the cursor (refunds_payment, refunds_created).
    if (paymentIntent.isEmpty()) {
        // The index walks by time; the account is read from each row it yields anyway.
        list.sql = "SELECT id, payment_intent, amount, currency, reason, status, created, metadata, "
                   "balance_transaction, charge FROM refunds "
                   "WHERE on_account = ? AND created BETWEEN ? AND ? AND (created < ? OR seq < ?) "
                   "ORDER BY created DESC, seq DESC LIMIT ?";
        list.binds = {textNotNull(onAccount)};
    } else {
        list.sql = "SELECT id, payment_intent, amount, currency, reason, status, created, metadata, "
                   "balance_transaction, charge FROM refunds "
                   "WHERE payment_intent = ? AND created BETWEEN ? AND ? AND (created < ? OR seq < ?) "
                   "ORDER BY created DESC, seq DESC LIMIT ?";
        list.binds = {paymentIntent};
    }
    return listPage(list, &refundFrom);
}

Expected<qint64> SandboxState::countRefunds(const QString &paymentIntent)
{
    QSqlQuery &query = paymentIntent.isEmpty()
            ? prepare("SELECT COUNT(*) FROM refunds")
            : prepare("SELECT COUNT(*) FROM refunds WHERE payment_intent = ?");
    const Finished queryDone(query);
    if (!paymentIntent.isEmpty())
        query.addBindValue(paymentIntent);
    if (Expected<void> done = exec(query, "counting refunds"); !done)
        return done.error();
    return query.next() ? query.value(0).toLongLong() : 0;
}

Expected<qint64> SandboxState::balance(const QString &account)
{
    QSqlQuery &query = prepare("SELECT COALESCE(SUM(amount), 0) FROM balance_transactions WHERE account = ?");
    const Finished queryDone(query);
    query.addBindValue(account);
    if (Expected<void> done = exec(query, "reading a balance"); !done)
        return done.error();
    return query.next() ? query.value(0).toLongLong() : 0;
}

Expected<std::optional<SandboxPage<SandboxBalanceTransaction>>>
SandboxState::balanceTransactions(const QString &account, int limit, const QString &startingAfter,
                                  const SandboxCreatedRange &createdRange)
{
    return listPage(ListQuery{startingAfter,
                              "SELECT created, seq FROM balance_transactions WHERE id = ? AND account = ?",
                              {account},
                              "SELECT id, account, amount, currency, type, source, description, created "
                              "FROM balance_transactions WHERE account = ? AND created BETWEEN ? AND ? "
                              "AND (created < ? OR seq < ?) ORDER BY created DESC, seq DESC LIMIT ?",
                              {account},
                              createdRange,
                              limit,
                              "listing balance transactions"},
                    &transactionFrom);
}

Expected<bool> SandboxState::insertRecord(const SandboxRecord &record)
{
    QSqlQuery &insert = prepare("INSERT INTO records (id, kind, order_id, fields, created, metadata) "
                                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING");
    const Finished insertDone(insert);
    for (const QVariant &value :
         QVariantList{record.id, record.kind, record.order, metadataText(record.fields), record.created,
                      metadataText(record.metadata)})
        insert.addBindValue(value);
    if (Expected<void> done = exec(insert, "recording a pickup or a message"); !done)
        return done.error();
    return insert.numRowsAffected() > 0;
}

Expected<std::optional<SandboxRecord>> SandboxState::record(const QString &kind, const QString &id)
{
    QSqlQuery &query = prepare(
            "SELECT id, kind, order_id, fields, created, metadata FROM records WHERE id = ? AND kind = ?");
    const Finished queryDone(query);
    query.addBindValue(id);
    query.addBindValue(kind);
    if (Expected<void> done = exec(query, "reading a pickup or a message"); !done)
        return done.error();
    if (!query.next())
        return std::optional<SandboxRecord>();
    return std::optional<SandboxRecord>(recordFrom(query));
}

Expected<std::optional<SandboxPage<SandboxRecord>>>
SandboxState::records(const QString &kind, const QString &order, int limit, const QString &startingAfter,
                      const SandboxCreatedRange &createdRange)
{
    ListQuery list{startingAfter, "SELECT created, seq FROM records WHERE id = ? AND kind = ?",
                   {kind},        nullptr,
                   {kind},        createdRange,
                   limit,         "listing pickups or messages"};
    // As for refunds: one statement for each index (records_kind, records_order).
    if (order.isEmpty()) {
        list.sql = "SELECT id, kind, order_id, fields, created, metadata FROM records "
                   "WHERE kind = ? AND created BETWEEN ? AND ? AND (created < ? OR seq < ?) "
                   "ORDER BY created DESC, seq DESC LIMIT ?";
    } else {
        list.sql = "SELECT id, kind, order_id, fields, created, metadata FROM records "
                   "WHERE kind = ? AND order_id = ? AND created BETWEEN ? AND ? AND (created < ? OR seq < ?) "
                   "ORDER BY created DESC, seq DESC LIMIT ?";
        list.binds.append(order);
    }
    return listPage(list, &recordFrom);
}

Expected<qint64> SandboxState::countRecords(const QString &kind)
{
    QSqlQuery &query = prepare("SELECT COUNT(*) FROM records WHERE kind = ?");
    const Finished queryDone(query);
    query.addBindValue(kind);
    if (Expected<void> done = exec(query, "counting pickups or messages"); !done)
        return done.error();
    return query.next() ? query.value(0).toLongLong() : 0;
}

} // namespace verity
