// The sandbox's state file on its own: a file written by the first schema is brought to the
// current one (its index for balances, its pickups and messages) and keeps its data; a newer file is refused;
// lists page from the cursor's place in the newest-first order, wherever that place is, through many pages
// and many refunds made in the same second; and a statement the state keeps between calls never holds an old
// view of the file.

#include "sandbox/sandboxstate.h"
#include "support/rawsqlite.h"

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>
#include <QVariant>

#include <algorithm>

using namespace verity;

namespace {

// The tables and indexes of schema 1, as the first sandbox wrote them.
const char *const schemaOne[] = {
        "CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "CREATE TABLE accounts (id TEXT PRIMARY KEY, name TEXT NOT NULL, currency TEXT NOT NULL, created "
        "INTEGER NOT NULL)",
        "CREATE TABLE payment_intents (id TEXT PRIMARY KEY, amount INTEGER NOT NULL, currency TEXT NOT NULL, "
        "account TEXT NOT NULL REFERENCES accounts(id), created INTEGER NOT NULL, metadata TEXT NOT NULL)",
        "CREATE TABLE refunds (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, "
        "payment_intent TEXT NOT NULL REFERENCES payment_intents(id), amount INTEGER NOT NULL, currency TEXT "
        "NOT NULL, "
        "reason TEXT, status TEXT NOT NULL, created INTEGER NOT NULL, metadata TEXT NOT NULL, "
        "balance_transaction TEXT NOT NULL)",
        "CREATE INDEX refunds_payment ON refunds(payment_intent, created, seq)",
        "CREATE INDEX refunds_created ON refunds(created, seq)",
        "CREATE TABLE balance_transactions (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, "
        "account TEXT NOT NULL REFERENCES accounts(id), amount INTEGER NOT NULL, currency TEXT NOT NULL, "
        "type TEXT NOT NULL, source TEXT NOT NULL, description TEXT NOT NULL, created INTEGER NOT NULL)",
        "CREATE INDEX balance_transactions_account ON balance_transactions(account, created, seq)",
        "CREATE TABLE idempotency_keys (key TEXT PRIMARY KEY, request_hash TEXT NOT NULL, status INTEGER NOT "
        "NULL, "
        "body BLOB NOT NULL, created_ms INTEGER NOT NULL)",
        "CREATE INDEX idempotency_keys_created ON idempotency_keys(created_ms)",
        "INSERT INTO meta (name, value) VALUES ('schema_version', '1')",
        "INSERT INTO accounts VALUES ('acct_north', 'North', 'usd', 1000)",
        "INSERT INTO balance_transactions (id, account, amount, currency, type, source, description, "
        "created) "
        "VALUES ('txn_open', 'acct_north', 50000, 'usd', 'adjustment', 'acct_north', 'Opening balance', "
        "1000)",
        "INSERT INTO balance_transactions (id, account, amount, currency, type, source, description, "
        "created) "
        "VALUES ('txn_a', 'acct_north', -1200, 'usd', 'refund', 're_a', 'Refund for pi_a', 2000)",
        "INSERT INTO payment_intents VALUES ('pi_a', 5000, 'usd', 'acct_north', 1500, "
        "'{\"order_id\":\"SU-1\"}')",
        "INSERT INTO refunds (id, payment_intent, amount, currency, reason, status, created, metadata, "
        "balance_transaction) VALUES ('re_a', 'pi_a', 1200, 'usd', NULL, 'succeeded', 2000, '{}', 'txn_a')",
};

// Runs statements on the file through a connection of its own, closed afterwards.
QStringList onFile(const QString &path, const QStringList &statements, bool *ok)
{
    QStringList rows;
    *ok = true;
    {
        test::RawSqlite raw(path);
        *ok = raw.isOpen();
        for (const QString &sql : statements) {
            QSqlQuery query(raw.db());
            if (!query.exec(sql)) {
                *ok = false;
                break;
            }
            while (query.next())
                rows.append(query.value(0).toString());
        }
    }
    return rows;
}

QStringList ids(const QList<SandboxRefund> &refunds)
{
    QStringList list;
    for (const SandboxRefund &refund : refunds)
        list.append(refund.id);
    return list;
}

// Every refund of the list, `limit` a page, each page after the last id of the one before.
QStringList readAll(SandboxState &state, int limit, const SandboxCreatedRange &range,
                    const QString &paymentIntent = {})
{
    QStringList read;
    QString cursor;
    for (int page = 0; page < 10000; ++page) {
        Expected<std::optional<SandboxPage<SandboxRefund>>> got =
                state.refunds(paymentIntent, limit, cursor, range);
        if (!got || !*got)
            return {QStringLiteral("failed")};
        read += ids((*got)->items);
        if (!(*got)->hasMore)
            break;
        cursor = read.last();
    }
    return read;
}

} // namespace

class SandboxStateTest : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    std::unique_ptr<SandboxState> open(const QString &name)
    {
        Expected<std::unique_ptr<SandboxState>> state =
                SandboxState::open(m_dir.filePath(name), SandboxState::Durability::Throwaway);
        if (!state)
            qWarning("%s", qPrintable(state.message()));
        return state ? std::move(*state) : nullptr;
    }

    // Refunds `re_<i>` of two payments at the given times (seconds), oldest first.
    void addRefunds(SandboxState &state, const QList<qint64> &times)
    {
        QVERIFY(state.begin());
        Expected<bool> added = state.insertAccount(
                {QStringLiteral("acct_a"), QStringLiteral("A"), QStringLiteral("usd"), 1}, 0, 1);
        QVERIFY(added);
        for (const QString &payment : {QStringLiteral("pi_even"), QStringLiteral("pi_odd")})
            QVERIFY(state.insertPayment(
                    {payment, 1000000000, QStringLiteral("usd"), QStringLiteral("acct_a"), 1, {}}));
        for (qsizetype i = 0; i < times.size(); ++i) {
            SandboxRefund refund;
            refund.id = QStringLiteral("re_%1").arg(i, 5, 10, QLatin1Char('0'));
            refund.paymentIntent = i % 2 ? QStringLiteral("pi_odd") : QStringLiteral("pi_even");
            refund.amount = 1;
            refund.currency = QStringLiteral("usd");
            refund.created = times.at(i);
            QVERIFY(state.insertRefund(refund, QStringLiteral("acct_a")));
        }
        QVERIFY(state.commit());
    }

private slots:
    void upgradesAFileOfTheFirstSchema()
    {
        const QString path = m_dir.filePath(QStringLiteral("one.sqlite"));
        QStringList statements;
        for (const char *sql : schemaOne)
            statements.append(QString::fromLatin1(sql));
        bool ok = false;
        onFile(path, statements, &ok);
        QVERIFY(ok);

        {
            std::unique_ptr<SandboxState> state = open(QStringLiteral("one.sqlite"));
            QVERIFY(state);
            QCOMPARE(*state->meta(QStringLiteral("schema_version")), QStringLiteral("4"));
            QCOMPARE(*state->balance(QStringLiteral("acct_north")), 48800);
            Expected<std::optional<SandboxPage<SandboxBalanceTransaction>>> movements =
                    state->balanceTransactions(QStringLiteral("acct_north"), 10, QString());
            QVERIFY(movements && *movements);
            QCOMPARE((*movements)->items.size(), 2);
            QCOMPARE((*movements)->items.first().id, QStringLiteral("txn_a")); // newest first
            // Schema 4: each payment has its charge, and its refunds name it; the payment is the
            // platform's, and searchable by its metadata.
            const std::optional<SandboxPayment> payment = *state->payment(QStringLiteral("pi_a"));
            QVERIFY(payment);
            QCOMPARE(payment->charge, QStringLiteral("ch_a"));
            QCOMPARE(payment->onAccount, QString());
            QCOMPARE((*state->paymentOfCharge(QStringLiteral("ch_a")))->id, QStringLiteral("pi_a"));
            QCOMPARE((*state->refund(QStringLiteral("re_a")))->charge, QStringLiteral("ch_a"));
            const Expected<SandboxPage<SandboxPayment>> found = state->searchPayments(
                    QStringLiteral("order_id"), QStringLiteral("SU-1"), QString(), 9999, 10, 0);
            QVERIFY(found);
            QCOMPARE(found->items.size(), 1);
        }
        const QStringList indexes = onFile(
                path,
                {QStringLiteral("SELECT sql FROM sqlite_master WHERE name = 'balance_transactions_balance'")},
                &ok);
        QVERIFY(ok);
        QCOMPARE(indexes,
                 QStringList{QStringLiteral("CREATE INDEX balance_transactions_balance ON "
                                            "balance_transactions(account, amount)")});
        // Schema 3: pickups and messages, listed by order from an index.
        QCOMPARE(onFile(path,
                        {QStringLiteral("SELECT name FROM sqlite_master WHERE tbl_name = 'records' AND name "
                                        "NOT LIKE 'sqlite_%' ORDER BY name")},
                        &ok),
                 (QStringList{QStringLiteral("records"), QStringLiteral("records_kind"),
                              QStringLiteral("records_order")}));
        QVERIFY(ok);
        // Opening again changes nothing, and the new table takes records.
        std::unique_ptr<SandboxState> again = open(QStringLiteral("one.sqlite"));
        QVERIFY(again);
        QCOMPARE(*again->meta(QStringLiteral("schema_version")), QStringLiteral("4"));
        QCOMPARE(*again->balance(QStringLiteral("acct_north")), 48800);
        SandboxRecord pickup{
                QStringLiteral("pu_1"), QStringLiteral("pickup"), QStringLiteral("SU-1"), {}, 5, {}};
        QVERIFY(*again->insertRecord(pickup));
        QVERIFY(!*again->insertRecord(pickup)); // the id exists: left as it was
        Expected<std::optional<SandboxPage<SandboxRecord>>> listed =
                again->records(QStringLiteral("pickup"), QStringLiteral("SU-1"), 10, {});
        QVERIFY(listed && *listed);
        QCOMPARE((*listed)->items.size(), 1);
        QCOMPARE(*again->countRecords(QStringLiteral("message")), 0);
    }

    void aNewFileHasTheCurrentSchema()
    {
        std::unique_ptr<SandboxState> state = open(QStringLiteral("new.sqlite"));
        QVERIFY(state);
        QCOMPARE(*state->meta(QStringLiteral("schema_version")), QStringLiteral("4"));
        state.reset();
        bool ok = false;
        QCOMPARE(
                onFile(m_dir.filePath(QStringLiteral("new.sqlite")),
                       {QStringLiteral(
                               "SELECT name FROM sqlite_master WHERE name = 'balance_transactions_balance'")},
                       &ok),
                QStringList{QStringLiteral("balance_transactions_balance")});
    }

    void refusesANewerFile()
    {
        {
            std::unique_ptr<SandboxState> state = open(QStringLiteral("newer.sqlite"));
            QVERIFY(state);
            QVERIFY(state->setMeta(QStringLiteral("schema_version"), QStringLiteral("99")));
        }
        Expected<std::unique_ptr<SandboxState>> newer = SandboxState::open(
                m_dir.filePath(QStringLiteral("newer.sqlite")), SandboxState::Durability::Throwaway);
        QVERIFY(!newer);
        QVERIFY2(newer.message().contains(
                         QStringLiteral("written by a newer Verity (sandbox schema 99; this one knows 4)")),
                 qPrintable(newer.message()));
    }

    void pagesFromTheCursorsPlace()
    {
        std::unique_ptr<SandboxState> state = open(QStringLiteral("pages.sqlite"));
        QVERIFY(state);
        // 1,000 refunds, most of them several to a second: 1000 s to 1249 s, four a second.
        QList<qint64> times;
        for (int i = 0; i < 1000; ++i)
            times.append(1000 + i / 4);
        addRefunds(*state, times);
        QStringList newestFirst;
        for (int i = 999; i >= 0; --i)
            newestFirst.append(QStringLiteral("re_%1").arg(i, 5, 10, QLatin1Char('0')));

        // Every page size reads every refund once, in order, whatever second a page ends in.
        for (int limit : {1, 3, 4, 7, 100})
            QCOMPARE(readAll(*state, limit, {}), newestFirst);
        // Within a range: [1100 s, 1200 s] is refunds 400 to 803.
        QCOMPARE(readAll(*state, 9, SandboxCreatedRange{1100, 1200}), newestFirst.mid(999 - 803, 404));
        // Of one payment.
        QStringList odd;
        for (const QString &id : std::as_const(newestFirst))
            if (id.back().digitValue() % 2)
                odd.append(id);
        QCOMPARE(readAll(*state, 7, {}, QStringLiteral("pi_odd")), odd);

        // A cursor after the range's end pages from the range's end; one before its start
        // finds nothing more; one inside a second gives the rest of that second first.
        const SandboxCreatedRange range{1100, 1200};
        Expected<std::optional<SandboxPage<SandboxRefund>>> page =
                state->refunds(QString(), 3, QStringLiteral("re_00900"), range);
        QVERIFY(page && *page);
        QCOMPARE(ids((*page)->items),
                 (QStringList{QStringLiteral("re_00803"), QStringLiteral("re_00802"),
                              QStringLiteral("re_00801")}));
        QVERIFY((*page)->hasMore);
        page = state->refunds(QString(), 3, QStringLiteral("re_00100"), range);
        QVERIFY(page && *page);
        QVERIFY((*page)->items.isEmpty());
        QVERIFY(!(*page)->hasMore);
        page = state->refunds(QString(), 3, QStringLiteral("re_00402"), range);
        QVERIFY(page && *page);
        QCOMPARE(ids((*page)->items), (QStringList{QStringLiteral("re_00401"), QStringLiteral("re_00400")}));
        QVERIFY(!(*page)->hasMore);
        // An unknown cursor is not a page.
        page = state->refunds(QString(), 3, QStringLiteral("re_nope"), range);
        QVERIFY(page && !*page);

        // The seller's movements page the same way: the opening balance is not one (none given).
        QStringList movements;
        QString cursor;
        for (int i = 0; i < 1000; ++i) {
            Expected<std::optional<SandboxPage<SandboxBalanceTransaction>>> got =
                    state->balanceTransactions(QStringLiteral("acct_a"), 6, cursor);
            QVERIFY(got && *got);
            for (const SandboxBalanceTransaction &movement : (*got)->items)
                movements.append(movement.source);
            if (!(*got)->hasMore)
                break;
            cursor = (*got)->items.last().id;
        }
        QCOMPARE(movements, newestFirst);
    }

    void seesWhatAnotherConnectionWrote()
    {
        // Two states on one file, as a restarted sandbox and a tool reading it: each read
        // through a kept statement must see the file as it is now, not as it was.
        std::unique_ptr<SandboxState> reader = open(QStringLiteral("shared.sqlite"));
        std::unique_ptr<SandboxState> writer = open(QStringLiteral("shared.sqlite"));
        QVERIFY(reader && writer);
        QVERIFY(writer->insertAccount(
                {QStringLiteral("acct_a"), QStringLiteral("A"), QStringLiteral("usd"), 1}, 100, 1));
        QCOMPARE(*reader->balance(QStringLiteral("acct_a")), 100);
        QVERIFY(reader->account(QStringLiteral("acct_a")).value());
        QVERIFY(!reader->account(QStringLiteral("acct_b")).value());
        QVERIFY(writer->insertAccount(
                {QStringLiteral("acct_b"), QStringLiteral("B"), QStringLiteral("usd"), 1}, 250, 1));
        QVERIFY(reader->account(QStringLiteral("acct_b")).value());
        QCOMPARE(*reader->balance(QStringLiteral("acct_b")), 250);
        QVERIFY(writer->insertAccount(
                {QStringLiteral("acct_c"), QStringLiteral("C"), QStringLiteral("usd"), 1}, 0, 1));
        QVERIFY(reader->account(QStringLiteral("acct_c")).value());
    }
};

QTEST_GUILESS_MAIN(SandboxStateTest)
#include "tst_sandboxstate.moc"
