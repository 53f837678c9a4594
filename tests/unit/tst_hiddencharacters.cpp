// Text a person types into the record is refused when a character in it would not be seen as
// itself, and text printed to a terminal names such characters instead of obeying them.

#include "domain/hiddencharacters.h"

#include <QTest>

using namespace verity;

class TestHiddenCharacters : public QObject
{
    Q_OBJECT

private slots:
    void refused_data();
    void refused();
    void visibleTextNamesThem_data();
    void visibleTextNamesThem();
};

void TestHiddenCharacters::refused_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("lineBreaksAllowed");
    QTest::addColumn<int>("at"); // -1: accepted
    QTest::addColumn<QString>("message");

    QTest::newRow("plain name") << QStringLiteral("Alice O'Brien") << false << -1 << QString();
    QTest::newRow("accents and other scripts")
            << QStringLiteral("Zoë Ærø 山田 José") << false << -1 << QString();
    QTest::newRow("an emoji outside the basic plane")
            << QStringLiteral("ok \U0001F44D") << false << -1 << QString();
    QTest::newRow("right-to-left override")
            << QStringLiteral("re_1\u202E99") << false << 4
            << QStringLiteral("the reference holds U+202E (a control or formatting "
                              "character) at character 5: type it as plain text");
    QTest::newRow("terminal escape")
            << QStringLiteral("\x1b[31mok") << false << 0
            << QStringLiteral("the reference holds U+001B (a control or formatting character) "
                              "at character 1: type it as plain text");
    QTest::newRow("zero-width space") << QStringLiteral("PK\u200B44120") << false << 2 << QString();
    QTest::newRow("line separator") << QStringLiteral("a\u2028b") << false << 1 << QString();
    QTest::newRow("a lone half of a surrogate pair") << QString(QChar(0xD800)) << false << 0 << QString();
    QTest::newRow("a tag character outside the basic plane")
            << QStringLiteral("x\U000E0041") << false << 1 << QString();
    QTest::newRow("newline in a one-line field") << QStringLiteral("a\nb") << false << 1 << QString();
    QTest::newRow("newline and tab in a note")
            << QStringLiteral("line one\n\tline two") << true << -1 << QString();
    QTest::newRow("carriage return in a note") << QStringLiteral("a\rb") << true << 1 << QString();
    QTest::newRow("bidi isolate in a note") << QStringLiteral("ok\n\u2066x") << true << 3 << QString();
}

void TestHiddenCharacters::refused()
{
    QFETCH(QString, text);
    QFETCH(bool, lineBreaksAllowed);
    QFETCH(int, at);
    QFETCH(QString, message);
    const LineBreaks breaks = lineBreaksAllowed ? LineBreaks::Allowed : LineBreaks::Refused;
    const std::optional<qsizetype> found = firstHiddenCharacter(text, breaks);
    QCOMPARE(found.has_value(), at >= 0);
    if (found)
        QCOMPARE(*found, qsizetype(at));
    const Expected<void> checked = checkShownAsTyped(QStringLiteral("the reference"), text, breaks);
    QCOMPARE(bool(checked), at < 0);
    if (!message.isEmpty())
        QCOMPARE(checked.message(), message);
}

void TestHiddenCharacters::visibleTextNamesThem_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("shown");

    QTest::newRow("plain") << QStringLiteral("settled by alice") << QStringLiteral("settled by alice");
    QTest::newRow("escape sequence") << QStringLiteral("\x1b[2Jgone") << QStringLiteral("\\u{001B}[2Jgone");
    QTest::newRow("bidi override") << QStringLiteral("a\u202Eb") << QStringLiteral("a\\u{202E}b");
    QTest::newRow("outside the basic plane")
            << QStringLiteral("\U000E0041\U0001F44D") << QStringLiteral("\\u{E0041}\U0001F44D");
}

void TestHiddenCharacters::visibleTextNamesThem()
{
    QFETCH(QString, text);
    QFETCH(QString, shown);
    QCOMPARE(visibleText(text), shown);
    QCOMPARE(firstHiddenCharacter(visibleText(text)), std::nullopt);
}

QTEST_APPLESS_MAIN(TestHiddenCharacters)
#include "tst_hiddencharacters.moc"
