// The audit chain against a real SQLite file: entries appended inside the caller's
// transaction, hashes checked against vectors computed independently (python3 hashlib over
// the encoding documented in auditlog.h), and every kind of tampering done with raw SQL
// through a second connection, each named at its first broken entry.

#include "audit/auditlog.h"
#include "audittestsupport.h"
#include "support/teststore.h"

#include <QTemporaryDir>
#include <QTest>

using namespace verity;
using namespace audittest;

namespace {

// python3:
//   ns = lambda b: str(len(b)).encode() + b":" + b + b","
//   ev = hashlib.sha256(b"evidence of the SU-88421 lookup").hexdigest()
//   e1 = b"".join(ns(x) for x in [b"verity-audit-v1", b"1", b"1773757927000", "Zoë Achterberg".encode(),
//        b"lookup", b"7", b"found re_1Pq: refund of 11800 USD for SU-88421", ev.encode(), b"0" * 64])
//   h1 = hashlib.sha256(e1).hexdigest()
//   e2 = ... [b"verity-audit-v1", b"2", b"1773757990123", b"amira", b"resolve", b"", b"", b"", h1.encode()]
const char *const vectorEvidence = "6c5d4a5c6f12e1807a1e91841be4066ecc1e4982e4dd8edb0f64fe4c2992b699";
const char *const vector1Hash = "9a25f1e7aa1e47dcc405f0ed2c6adb2664b3dae77466e53f4b49d67c6ddae0d9";
const char *const vector2Hash = "8930fe83aa6ba3a8d506bf473c628ae0528fecd077bc11cc9ccd99721c8f8bad";
const QByteArray vector1Encoding =
        "15:verity-audit-v1,1:1,13:1773757927000,15:Zo\xc3\xab"
        " Achterberg,6:lookup,1:7,46:found re_1Pq: refund of 11800 USD for SU-88421,"
        "64:6c5d4a5c6f12e1807a1e91841be4066ecc1e4982e4dd8edb0f64fe4c2992b699,"
        "64:0000000000000000000000000000000000000000000000000000000000000000,";

AuditEntry vector1()
{
    AuditEntry entry;
    entry.seq = 1;
    entry.at = 1773757927000;
    entry.operatorName = QStringLiteral("Zoë Achterberg");
    entry.action = QStringLiteral("lookup");
    entry.escalationId = 7;
    entry.detail = QStringLiteral("found re_1Pq: refund of 11800 USD for SU-88421");
    entry.evidenceSha256 = QString::fromLatin1(vectorEvidence);
    entry.prevHash = QString(64, u'0');
    return entry;
}

AuditEntry vector2()
{
    AuditEntry entry;
    entry.seq = 2;
    entry.at = 1773757990123;
    entry.operatorName = QStringLiteral("amira");
    entry.action = QStringLiteral("resolve");
    entry.prevHash = QString::fromLatin1(vector1Hash);
    return entry;
}

QList<AuditEntry> allEntries(Store &store)
{
    Expected<QList<AuditEntry>> entries = store.auditEntries(0, 1 << 20);
    return entries ? *entries : QList<AuditEntry>();
}

} // namespace

class TestAuditLog : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();

    void fixedVectors();
    void appendReproducesTheFixedVectors();
    void encodingKeepsFieldsApart_data();
    void encodingKeepsFieldsApart();

    void appendNumbersAndChains();
    void appendCommitsWithTheCallersTransaction();
    void appendRejects_data();
    void appendRejects();
    void storedTextIsHashedTextExactly_data();
    void storedTextIsHashedTextExactly();

    void emptyLogIsIntact();
    void tamperingIsNamedAtItsFirstBrokenEntry_data();
    void tamperingIsNamedAtItsFirstBrokenEntry();
    void unreadableLogIsAnErrorNotABreak();

private:
    QString newDatabase();

    QTemporaryDir m_dir;
    int m_databases = 0;
};

void TestAuditLog::initTestCase()
{
    QVERIFY(m_dir.isValid());
}

QString TestAuditLog::newDatabase()
{
    return m_dir.filePath(QStringLiteral("audit-%1.sqlite").arg(++m_databases));
}

void TestAuditLog::fixedVectors()
{
    QCOMPARE(AuditLog::canonicalEncoding(vector1()), vector1Encoding);
    QCOMPARE(AuditLog::entryHash(vector1()), QString::fromLatin1(vector1Hash));
    QCOMPARE(AuditLog::entryHash(vector2()), QString::fromLatin1(vector2Hash));
    QCOMPARE(AuditLog::zeroHash(), QString(64, u'0'));

    // The stored hash takes no part in the hash.
    AuditEntry withHash = vector1();
    withHash.hash = QStringLiteral("anything");
    QCOMPARE(AuditLog::entryHash(withHash), QString::fromLatin1(vector1Hash));
}

void TestAuditLog::appendReproducesTheFixedVectors()
{
    auto store = test::openTestStore(newDatabase());
    QVERIFY(store);
    AuditLog log(*store);
    QVERIFY(store->begin());
    const AuditEntry v1 = vector1();
    Expected<AuditEntry> first =
            log.append(v1.operatorName, v1.action, v1.escalationId, v1.detail, v1.evidenceSha256, v1.at);
    QVERIFY2(first, first ? "" : qPrintable(first.message()));
    const AuditEntry v2 = vector2();
    Expected<AuditEntry> second =
            log.append(v2.operatorName, v2.action, v2.escalationId, v2.detail, v2.evidenceSha256, v2.at);
    QVERIFY2(second, second ? "" : qPrintable(second.message()));
    QVERIFY(store->commit());

    QCOMPARE(first->hash, QString::fromLatin1(vector1Hash));
    QCOMPARE(second->prevHash, QString::fromLatin1(vector1Hash));
    QCOMPARE(second->hash, QString::fromLatin1(vector2Hash));
    const QList<AuditEntry> stored = allEntries(*store);
    QCOMPARE(stored.size(), 2);
    QCOMPARE(stored.at(0).hash, QString::fromLatin1(vector1Hash));
    QCOMPARE(stored.at(1).hash, QString::fromLatin1(vector2Hash));
}

void TestAuditLog::encodingKeepsFieldsApart_data()
{
    QTest::addColumn<int>("field");
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");

    // Pairs of entries whose fields concatenate to the same text: the hashes must differ.
    QTest::newRow("operator|action boundary") << 0 << QStringLiteral("ab|c") << QStringLiteral("a|bc");
    QTest::newRow("action|detail boundary") << 1 << QStringLiteral("lookup|x") << QStringLiteral("lookupx|");
    QTest::newRow("no escalation vs escalation 0") << 2 << QStringLiteral("none") << QStringLiteral("0");
    QTest::newRow("digit moved into the detail") << 3 << QStringLiteral("1|2") << QStringLiteral("12|");
}

void TestAuditLog::encodingKeepsFieldsApart()
{
    QFETCH(int, field);
    QFETCH(QString, a);
    QFETCH(QString, b);
    auto entryFor = [field](const QString &text) {
        AuditEntry entry = vector2();
        const QStringList parts = text.split(u'|');
        switch (field) {
        case 0:
            entry.operatorName = parts.at(0);
            entry.action = parts.at(1);
            break;
        case 1:
            entry.action = parts.at(0);
            entry.detail = parts.at(1);
            break;
        case 2:
            entry.escalationId =
                    text == QStringLiteral("none") ? std::nullopt : std::optional<qint64>(text.toLongLong());
            break;
        default:
            entry.escalationId = parts.at(0).toLongLong();
            entry.detail = parts.at(1);
            break;
        }
        return entry;
    };
    QVERIFY(AuditLog::canonicalEncoding(entryFor(a)) != AuditLog::canonicalEncoding(entryFor(b)));
    QVERIFY(AuditLog::entryHash(entryFor(a)) != AuditLog::entryHash(entryFor(b)));
}

void TestAuditLog::appendNumbersAndChains()
{
    auto store = test::openTestStore(newDatabase());
    QVERIFY(store);
    QCOMPARE(appendEntries(*store, 5), QString());

    const QList<AuditEntry> entries = allEntries(*store);
    QCOMPARE(entries.size(), 5);
    for (int i = 0; i < entries.size(); ++i) {
        const AuditEntry &entry = entries.at(i);
        const int n = i + 1;
        QCOMPARE(entry.seq, qint64(n));
        QCOMPARE(entry.at, firstEntryAt + 60000LL * n);
        QCOMPARE(entry.operatorName, operatorOf(n));
        QCOMPARE(entry.action, actionOf(n));
        QCOMPARE(entry.escalationId, escalationOf(n));
        QCOMPARE(entry.detail, detailOf(n));
        QCOMPARE(entry.evidenceSha256, evidenceOf(n));
        QCOMPARE(entry.prevHash, i == 0 ? AuditLog::zeroHash() : entries.at(i - 1).hash);
        QCOMPARE(entry.hash, AuditLog::entryHash(entry));
    }
    Expected<std::optional<AuditEntry>> last = store->lastAuditEntry();
    QVERIFY(last && *last);
    QCOMPARE((*last)->hash, entries.last().hash);

    Expected<AuditVerification> verification = AuditLog::verify(*store);
    QVERIFY2(verification, verification ? "" : qPrintable(verification.message()));
    QVERIFY(verification->intact);
    QCOMPARE(verification->entriesChecked, qint64(5));
    QCOMPARE(verification->firstBrokenSeq, std::nullopt);
    QCOMPARE(verification->reason, QString());
}

void TestAuditLog::appendCommitsWithTheCallersTransaction()
{
    auto store = test::openTestStore(newDatabase());
    QVERIFY(store);
    AuditLog log(*store);

    // Rolled back with the change it recorded: no entry, and the next one is still entry 1.
    QVERIFY(store->begin());
    QVERIFY(log.append(QStringLiteral("amira"), QStringLiteral("resolve"), 3, QStringLiteral("undone"),
                       QString(), 1));
    store->rollback();
    QCOMPARE(*store->countAuditEntries(), qint64(0));

    QVERIFY(store->begin());
    Expected<AuditEntry> kept = log.append(QStringLiteral("amira"), QStringLiteral("resolve"), 3,
                                           QStringLiteral("kept"), QString(), 2);
    QVERIFY(kept);
    QVERIFY(store->commit());
    QCOMPARE(kept->seq, qint64(1));
    QCOMPARE(kept->prevHash, AuditLog::zeroHash());
    QCOMPARE(*store->countAuditEntries(), qint64(1));

    // Two appends in one transaction chain onto each other.
    QVERIFY(store->begin());
    Expected<AuditEntry> second =
            log.append(QStringLiteral("bruno"), QStringLiteral("lookup"), 4, QString(), QString(), 3);
    Expected<AuditEntry> third =
            log.append(QStringLiteral("bruno"), QStringLiteral("write"), 4, QString(), QString(), 4);
    QVERIFY(second && third);
    QVERIFY(store->commit());
    QCOMPARE(second->seq, qint64(2));
    QCOMPARE(third->seq, qint64(3));
    QCOMPARE(third->prevHash, second->hash);
    QVERIFY(AuditLog::verify(*store)->intact);
}

void TestAuditLog::appendRejects_data()
{
    QTest::addColumn<QString>("operatorName");
    QTest::addColumn<QString>("action");
    QTest::addColumn<QString>("evidence");
    QTest::addColumn<QString>("message");

    const QString good = QString::fromLatin1(vectorEvidence);
    QTest::newRow("no operator") << QString() << QStringLiteral("lookup") << good
                                 << QStringLiteral("operator");
    QTest::newRow("blank operator") << QStringLiteral("  ") << QStringLiteral("lookup") << good
                                    << QStringLiteral("operator");
    QTest::newRow("no action") << QStringLiteral("amira") << QString() << good << QStringLiteral("action");
    QTest::newRow("uppercase evidence") << QStringLiteral("amira") << QStringLiteral("lookup")
                                        << good.toUpper() << QStringLiteral("evidence");
    QTest::newRow("short evidence") << QStringLiteral("amira") << QStringLiteral("lookup") << good.left(63)
                                    << QStringLiteral("evidence");
    QTest::newRow("evidence not hex") << QStringLiteral("amira") << QStringLiteral("lookup")
                                      << QString(64, u'g') << QStringLiteral("evidence");
}

void TestAuditLog::appendRejects()
{
    QFETCH(QString, operatorName);
    QFETCH(QString, action);
    QFETCH(QString, evidence);
    QFETCH(QString, message);
    auto store = test::openTestStore(newDatabase());
    QVERIFY(store);
    AuditLog log(*store);
    QVERIFY(store->begin());
    Expected<AuditEntry> entry = log.append(operatorName, action, 1, QStringLiteral("x"), evidence, 1);
    QVERIFY(store->commit());
    QVERIFY(!entry);
    QVERIFY2(entry.message().contains(message), qPrintable(entry.message()));
    QCOMPARE(*store->countAuditEntries(), qint64(0));
}

void TestAuditLog::storedTextIsHashedTextExactly_data()
{
    QTest::addColumn<QString>("detail");
    QTest::addColumn<QString>("readBack");

    const QString nfd = QStringLiteral("arrive\u0301e casse\u0301e");
    QTest::newRow("empty") << QString() << QString();
    QTest::newRow("decomposed accents stay decomposed") << nfd << nfd;
    QTest::newRow("lines and tabs") << QStringLiteral("a\nb\tc\r\n") << QStringLiteral("a\nb\tc\r\n");
    QTest::newRow("markup is text") << QStringLiteral("<b>1</b>") << QStringLiteral("<b>1</b>");
    // An unpaired surrogate cannot be stored as UTF-8: Qt's UTF-8 encoder replaces it (with
    // '?') before the hash is taken, so what is hashed is what is stored.
    QTest::newRow("unpaired surrogate")
            << (QStringLiteral("x") + QChar(0xd800) + QStringLiteral("y")) << QStringLiteral("x?y");
}

void TestAuditLog::storedTextIsHashedTextExactly()
{
    QFETCH(QString, detail);
    QFETCH(QString, readBack);
    auto store = test::openTestStore(newDatabase());
    QVERIFY(store);
    AuditLog log(*store);
    QVERIFY(store->begin());
    Expected<AuditEntry> entry =
            log.append(QStringLiteral("amira"), QStringLiteral("lookup"), std::nullopt, detail, QString(), 5);
    QVERIFY2(entry, entry ? "" : qPrintable(entry.message()));
    QVERIFY(store->commit());
    const QList<AuditEntry> stored = allEntries(*store);
    QCOMPARE(stored.size(), 1);
    QCOMPARE(stored.first().detail, readBack);
    QCOMPARE(entry->detail, readBack);
    QCOMPARE(stored.first().hash, entry->hash);
    QVERIFY(AuditLog::verify(*store)->intact);
}

void TestAuditLog::emptyLogIsIntact()
{
    auto store = test::openTestStore(newDatabase());
    QVERIFY(store);
    Expected<AuditVerification> verification = AuditLog::verify(*store);
    QVERIFY(verification);
    QVERIFY(verification->intact);
    QCOMPARE(verification->entriesChecked, qint64(0));
}

void TestAuditLog::tamperingIsNamedAtItsFirstBrokenEntry_data()
{
    QTest::addColumn<int>("entries");
    QTest::addColumn<QStringList>("statements");
    QTest::addColumn<qint64>("rehashSeq"); // then give this entry the hash of its new contents; 0: none
    QTest::addColumn<qint64>("firstBroken"); // 0: the chain still verifies
    QTest::addColumn<QString>("reason");

    const QString edited = QStringLiteral("does not match its contents");
    auto sql = [](const char *text) { return QStringList{QString::fromLatin1(text)}; };

    QTest::newRow("detail edited") << 6
                                   << sql("UPDATE audit_log SET detail = 'refund of 1 USD' WHERE seq = 3")
                                   << qint64(0) << qint64(3) << edited;
    QTest::newRow("operator edited") << 6 << sql("UPDATE audit_log SET operator = 'mallory' WHERE seq = 3")
                                     << qint64(0) << qint64(3) << edited;
    QTest::newRow("action edited") << 6 << sql("UPDATE audit_log SET action = 'lookup' WHERE seq = 2")
                                   << qint64(0) << qint64(2) << edited;
    QTest::newRow("time edited") << 6 << sql("UPDATE audit_log SET at = at + 1 WHERE seq = 5") << qint64(0)
                                 << qint64(5) << edited;
    QTest::newRow("escalation removed") << 6 << sql("UPDATE audit_log SET escalation_id = NULL WHERE seq = 3")
                                        << qint64(0) << qint64(3) << edited;
    QTest::newRow("escalation added") << 6 << sql("UPDATE audit_log SET escalation_id = 9 WHERE seq = 4")
                                      << qint64(0) << qint64(4) << edited;
    QTest::newRow("evidence replaced") << 6
                                       << sql("UPDATE audit_log SET evidence_sha256 = (SELECT "
                                              "evidence_sha256 FROM audit_log WHERE seq = 1) "
                                              "WHERE seq = 5")
                                       << qint64(0) << qint64(5) << edited;
    QTest::newRow("hash replaced")
            << 6
            << sql("UPDATE audit_log SET hash = (SELECT hash FROM audit_log WHERE seq = 2) || 'x' "
                   "WHERE seq = 4")
            << qint64(0) << qint64(4) << edited;
    QTest::newRow("edited and rehashed: the next link breaks")
            << 6 << sql("UPDATE audit_log SET detail = 'refund of 1 USD' WHERE seq = 3") << qint64(3)
            << qint64(4) << QStringLiteral("its prev_hash does not match the hash of entry 3");
    // The schema refuses a second entry after the same one: a tamperer drops that index first.
    QTest::newRow("prev_hash edited and rehashed")
            << 6
            << QStringList{QStringLiteral("DROP INDEX audit_log_prev"),
                           QStringLiteral(
                                   "UPDATE audit_log SET prev_hash = (SELECT hash FROM audit_log WHERE "
                                   "seq = 1) WHERE seq = 3")}
            << qint64(3) << qint64(3) << QStringLiteral("its prev_hash does not match the hash of entry 2");
    QTest::newRow("middle entry deleted") << 6 << sql("DELETE FROM audit_log WHERE seq = 3") << qint64(0)
                                          << qint64(4) << QStringLiteral("entry 3 is missing (deleted)");
    QTest::newRow("two entries deleted") << 6 << sql("DELETE FROM audit_log WHERE seq IN (3, 4)") << qint64(0)
                                         << qint64(5) << QStringLiteral("entries 3 to 4 are missing");
    QTest::newRow("first entry deleted") << 6 << sql("DELETE FROM audit_log WHERE seq = 1") << qint64(0)
                                         << qint64(2) << QStringLiteral("entry 1 is missing");
    QTest::newRow("deleted and renumbered")
            << 6
            << QStringList{QStringLiteral("DELETE FROM audit_log WHERE seq = 3"),
                           QStringLiteral("UPDATE audit_log SET seq = seq - 1 WHERE seq > 3")}
            << qint64(0) << qint64(3) << edited;
    QTest::newRow("two entries' seq swapped")
            << 6
            << QStringList{QStringLiteral("UPDATE audit_log SET seq = -2 WHERE seq = 2"),
                           QStringLiteral("UPDATE audit_log SET seq = 2 WHERE seq = 4"),
                           QStringLiteral("UPDATE audit_log SET seq = 4 WHERE seq = -2")}
            << qint64(0) << qint64(2) << edited;
    QTest::newRow("entry 1 not chained to the zero hash")
            << 6
            << sql("UPDATE audit_log SET prev_hash = (SELECT hash FROM audit_log WHERE seq = 6) WHERE seq = "
                   "1")
            << qint64(1) << qint64(1) << QStringLiteral("not the zero hash");
    QTest::newRow("entry 1 renumbered 0") << 6 << sql("UPDATE audit_log SET seq = 0 WHERE seq = 1")
                                          << qint64(0) << qint64(0) << QStringLiteral("below 1");
    // The documented limit: removing the last entries leaves a whole, shorter chain.
    QTest::newRow("last entry deleted: not detectable")
            << 6 << sql("DELETE FROM audit_log WHERE seq = 6") << qint64(0) << qint64(0) << QString();

    // Across the pages verify() reads (1000 entries each).
    QTest::newRow("deleted at a page boundary")
            << 2500 << sql("DELETE FROM audit_log WHERE seq = 1001") << qint64(0) << qint64(1002)
            << QStringLiteral("entry 1001 is missing");
    QTest::newRow("rehashed last of a page: the link to the next page breaks")
            << 2500 << sql("UPDATE audit_log SET operator = 'mallory' WHERE seq = 1000") << qint64(1000)
            << qint64(1001) << QStringLiteral("hash of entry 1000");
    QTest::newRow("edited on the third page")
            << 2500 << sql("UPDATE audit_log SET detail = '' WHERE seq = 2001") << qint64(0) << qint64(2001)
            << edited;
}

void TestAuditLog::tamperingIsNamedAtItsFirstBrokenEntry()
{
    QFETCH(int, entries);
    QFETCH(QStringList, statements);
    QFETCH(qint64, rehashSeq);
    QFETCH(qint64, firstBroken);
    QFETCH(QString, reason);

    const QString path = newDatabase();
    auto store = test::openTestStore(path);
    QVERIFY(store);
    QCOMPARE(appendEntries(*store, entries, entries > 10), QString());
    QVERIFY(AuditLog::verify(*store)->intact);

    // Behind the open store's back, as someone with the file and the sqlite3 shell would.
    RawSqlite raw(path);
    QVERIFY(raw.isOpen());
    for (const QString &statement : statements)
        QCOMPARE(raw.exec(statement), QString());
    if (rehashSeq > 0)
        QCOMPARE(rehash(raw.db(), rehashSeq), QString());

    Expected<AuditVerification> verification = AuditLog::verify(*store);
    QVERIFY2(verification, verification ? "" : qPrintable(verification.message()));
    if (firstBroken == 0 && reason.isEmpty()) {
        QVERIFY2(verification->intact, qPrintable(verification->reason));
        QCOMPARE(verification->entriesChecked,
                 scalar(raw.db(), QStringLiteral("SELECT count(*) FROM audit_log")));
        return;
    }
    QVERIFY(!verification->intact);
    QCOMPARE(verification->firstBrokenSeq, std::optional<qint64>(firstBroken));
    QVERIFY2(verification->reason.contains(reason), qPrintable(verification->reason));
    QCOMPARE(verification->entriesChecked,
             scalar(raw.db(),
                    QStringLiteral("SELECT count(*) FROM audit_log WHERE seq <= %1").arg(firstBroken)));

    // A fresh store on the file sees the same.
    store.reset();
    auto reopened = test::openTestStore(path);
    QVERIFY(reopened);
    Expected<AuditVerification> again = AuditLog::verify(*reopened);
    QVERIFY(again);
    QCOMPARE(again->firstBrokenSeq, verification->firstBrokenSeq);
    QCOMPARE(again->reason, verification->reason);
}

void TestAuditLog::unreadableLogIsAnErrorNotABreak()
{
    const QString path = newDatabase();
    auto store = test::openTestStore(path);
    QVERIFY(store);
    QCOMPARE(appendEntries(*store, 3), QString());
    RawSqlite raw(path);
    QCOMPARE(raw.exec(QStringLiteral("DROP TABLE audit_log")), QString());
    Expected<AuditVerification> verification = AuditLog::verify(*store);
    QVERIFY(!verification);
    QVERIFY2(verification.message().contains(QStringLiteral("audit")), qPrintable(verification.message()));
}

QTEST_GUILESS_MAIN(TestAuditLog)
#include "tst_auditlog.moc"
