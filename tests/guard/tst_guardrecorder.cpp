// What the guard stores, against a real SQLite file: answers are stored on a session of their
// own, a write's verdict reads the write answers handed over before it, and nothing handed over
// is lost when the recorder ends or its database cannot be opened.

#include "guard/guardrecorder.h"
#include "store/storefactory.h"
#include "support/testmacros.h"

#include <QDateTime>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;
using nlohmann::json;

namespace {

RegistrySelection builtIn()
{
    return RegistrySelection::forced(NamedRegistry{QStringLiteral("default"), ToolRegistry::builtIn()});
}

GuardedCall call(const QString &id, const QString &tool, json arguments)
{
    GuardedCall made;
    made.conversation = QStringLiteral("SU-60001-chat");
    made.conversationNamed = true;
    made.callId = id;
    made.sourceId = QStringLiteral("session 1 ") + id;
    made.tool = tool;
    made.arguments = std::move(arguments);
    made.origin = QStringLiteral("ledger");
    made.at = QDateTime::currentMSecsSinceEpoch();
    return made;
}

GuardedCall refund(const QString &id)
{
    return call(id, QStringLiteral("issue_refund"), {{"order_id", "SU-60001"}, {"amount_cents", 2500}});
}

json answerSaying(const char *text)
{
    return {{"content", json::array({{{"type", "text"}, {"text", text}}})}};
}

} // namespace

class GuardRecorderTest : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void aWriteAnswerHandedOverIsReadByTheNextVerdict();
    void answersHandedOverAreAllStoredWhenTheRecorderEnds();
    void answersThatCannotBeStoredAreTold();

private:
    QString database() const { return m_dir->filePath(QStringLiteral("desk.sqlite")); }
    qsizetype storedCalls()
    {
        Expected<std::unique_ptr<Store>> store = openStore(database());
        if (!store)
            return -1;
        Expected<std::optional<qint64>> ticket = (*store)->ticketIdByExtId(QStringLiteral("SU-60001-chat"));
        if (!ticket || !*ticket)
            return 0;
        Expected<QList<TranscriptEntry>> entries = (*store)->transcript(**ticket);
        qsizetype calls = 0;
        for (const TranscriptEntry &entry : entries ? *entries : QList<TranscriptEntry>())
            calls += entry.isToolCall ? 1 : 0;
        return calls;
    }

    std::unique_ptr<QTemporaryDir> m_dir;
};

void GuardRecorderTest::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

void GuardRecorderTest::aWriteAnswerHandedOverIsReadByTheNextVerdict()
{
    Expected<std::unique_ptr<Store>> store = openStore(database());
    QVERIFY_OK(store);
    const QString path = database();
    GuardRecorder recorder(**store, [path] { return openStore(path); }, builtIn(), 60000, {});
    GuardedCall first = refund(QStringLiteral("c1"));
    Expected<WriteAdmission> sent = recorder.admitWrite(first, QString());
    QVERIFY_OK(sent);
    QCOMPARE(sent->verdict.kind, RepeatVerdict::Kind::Send);
    // The answer is handed over and the retry judged at once: the verdict waits for it, so the
    // model hears the refund was made instead of being held.
    recorder.recordResult(first, answerSaying("Refund re_60001 issued"), false, QString(),
                          QDateTime::currentMSecsSinceEpoch());
    GuardedCall retry = refund(QStringLiteral("c2"));
    Expected<WriteAdmission> again = recorder.admitWrite(retry, QString());
    QVERIFY_OK(again);
    QCOMPARE(again->verdict.kind, RepeatVerdict::Kind::AnswerPerformed);
}

void GuardRecorderTest::answersHandedOverAreAllStoredWhenTheRecorderEnds()
{
    const QString path = database();
    {
        Expected<std::unique_ptr<Store>> store = openStore(path);
        QVERIFY_OK(store);
        GuardRecorder recorder(**store, [path] { return openStore(path); }, builtIn(), 60000, {});
        for (int i = 0; i < 10; ++i) {
            const GuardedCall read = call(QStringLiteral("r%1").arg(i), QStringLiteral("get_order"),
                                          {{"order_id", "SU-60001"}});
            recorder.recordResult(read, answerSaying("{\"status\":\"delivered\"}"), false, QString(),
                                  read.at);
        }
    }
    QCOMPARE(storedCalls(), 10);
}

void GuardRecorderTest::answersThatCannotBeStoredAreTold()
{
    Expected<std::unique_ptr<Store>> store = openStore(database());
    QVERIFY_OK(store);
    QStringList told;
    {
        GuardRecorder recorder(
                **store,
                [] {
                    return Expected<std::unique_ptr<Store>>(makeError(QStringLiteral("the server is away")));
                },
                builtIn(), 60000, [&told](const QString &why) { told.append(why); });
        const GuardedCall read =
                call(QStringLiteral("r1"), QStringLiteral("get_order"), {{"order_id", "SU-60001"}});
        recorder.recordResult(read, answerSaying("{}"), false, QString(), read.at);
        QTRY_COMPARE(told.size(), 1);
    }
    QVERIFY2(told.first().contains(
                     QLatin1String("1 answer(s) to reads could not be recorded (the server is away)")),
             qPrintable(told.first()));
    QCOMPARE(storedCalls(), 0);
}

QTEST_GUILESS_MAIN(GuardRecorderTest)
#include "tst_guardrecorder.moc"
