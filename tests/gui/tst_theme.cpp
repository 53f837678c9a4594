// The theme is the one place colours and card styles come from: every style sheet it makes
// is one Qt can read, and no widget of the console spells a colour of its own.

#include "theme.h"

#include <QDirIterator>
#include <QFile>
#include <QFrame>
#include <QLabel>
#include <QRegularExpression>
#include <QTest>

using namespace verity;

class TestTheme : public QObject
{
    Q_OBJECT

private slots:
    void everyStyleSheetParses();
    void widgetsSpellNoColours();
};

void TestTheme::everyStyleSheetParses()
{
    // Qt says "Could not parse stylesheet" and draws the widget plain: a theme typo would go unseen.
    QTest::failOnWarning(
            QRegularExpression(QStringLiteral("stylesheet"), QRegularExpression::CaseInsensitiveOption));
    QStringList sheets;
    for (theme::Text role : {theme::Text::Body, theme::Text::Muted, theme::Text::Caption, theme::Text::Author,
                             theme::Text::ToolName, theme::Text::Warning})
        sheets << theme::label(role);
    for (theme::Tone tone : {theme::Tone::Neutral, theme::Tone::Good, theme::Tone::Bad, theme::Tone::Warning})
        sheets << theme::status(tone) << theme::status(tone, false);
    for (theme::Band band : {theme::Band::Unknown, theme::Band::Duplicate, theme::Band::Performed,
                             theme::Band::NotPerformed, theme::Band::Attested, theme::Band::Harmless})
        sheets << theme::band(band);
    for (MessageKind kind :
         {MessageKind::Customer, MessageKind::Agent, MessageKind::System, MessageKind::Reply})
        sheets << theme::messageCard(kind);
    sheets << theme::standing(true) << theme::standing(false) << theme::messageText(true)
           << theme::messageText(false) << theme::classBadge() << theme::codeBlock() << theme::codeField()
           << theme::transcriptPage(QStringLiteral("page"))
           << theme::callCard(QStringLiteral("QFrame"), true, false)
           << theme::callCard(QStringLiteral("QFrame"), false, true);
    for (const QString &sheet : std::as_const(sheets)) {
        QVERIFY2(!sheet.isEmpty(), "a role without a style");
        QVERIFY2(!sheet.contains(u'%'), qPrintable(sheet)); // an argument left unfilled
        QFrame frame;
        frame.setObjectName(QStringLiteral("page"));
        auto *label = new QLabel(QStringLiteral("text"), &frame);
        frame.setStyleSheet(sheet);
        label->setStyleSheet(sheet);
        frame.resize(200, 60);
        frame.grab(); // polishes, which parses the sheet
    }
    const QString link =
            theme::statusLink(QStringLiteral("x"), QStringLiteral("<b>1 & 2</b>"), theme::Tone::Bad);
    QVERIFY2(link.contains(QStringLiteral("&lt;b&gt;1 &amp; 2")), qPrintable(link));
}

void TestTheme::widgetsSpellNoColours()
{
    const QRegularExpression colour(QStringLiteral("#[0-9a-fA-F]{6}\\b|QColor\\(\\s*0x|rgb\\("));
    QStringList offenders;
    QDirIterator files(QStringLiteral(VERITY_SOURCE_DIR "/ui"),
                       {QStringLiteral("*.cpp"), QStringLiteral("*.h")});
    int read = 0;
    while (files.hasNext()) {
        const QString path = files.next();
        if (path.endsWith(QStringLiteral("/theme.cpp")))
            continue;
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        ++read;
        int number = 0;
        while (!file.atEnd()) {
            const QString line = QString::fromUtf8(file.readLine());
            ++number;
            if (colour.match(line).hasMatch())
                offenders << QStringLiteral("%1:%2: %3")
                                     .arg(path.section(u'/', -2), QString::number(number), line.trimmed());
        }
    }
    QVERIFY(read > 20);
    QVERIFY2(offenders.isEmpty(),
             qPrintable(QStringLiteral("colours belong in the palette and the theme:\n")
                        + offenders.join(u'\n')));
}

QTEST_MAIN(TestTheme)
#include "tst_theme.moc"
