// The payment provider settings dialog, driven as a person would: a base URL outside the rule
// (plain http to another machine, a file, a bare path, a password in the URL) is refused in
// the dialog with what was expected, the dialog stays open and nothing is saved; a good one
// is saved and closes it.

#include "providersettingsdialog.h"
#include "resolution/providerconnection.h"
#include "store/storefactory.h"
#include "support/testmacros.h"

#include <QApplication>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace verity;

namespace {

const QString savedUrl = QStringLiteral("http://127.0.0.1:12111");

} // namespace

class TestProviderSettingsDialog : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void refusedUrlIsShownAndNothingSaved_data();
    void refusedUrlIsShownAndNothingSaved();
    void goodUrlIsSaved();
    void savedUrlOutsideTheRuleIsNamed();

private:
    // Types `url` into the open dialog and clicks Save.
    void typeAndSave(ProviderSettingsDialog &dialog, const QString &url);

    QTemporaryDir m_dir;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<ProviderConnection> m_connection;
};

void TestProviderSettingsDialog::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QCoreApplication::setOrganizationName(QStringLiteral("verity-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_providersettingsdialog"));
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("config")));
    // The key from the environment: no desktop keychain is asked.
    qputenv(ProviderConnection::apiKeyVariable, "sk_test_sandbox");
    Expected<std::unique_ptr<Store>> store = openStore(m_dir.filePath(QStringLiteral("console.sqlite")));
    QVERIFY_OK(store);
    m_store = std::move(*store);
}

void TestProviderSettingsDialog::init()
{
    m_connection = std::make_unique<ProviderConnection>(*m_store);
    QVERIFY(m_connection->save(QUrl(savedUrl), QStringLiteral("alice"), QString()));
}

void TestProviderSettingsDialog::typeAndSave(ProviderSettingsDialog &dialog, const QString &url)
{
    auto *field = dialog.findChild<QLineEdit *>(QStringLiteral("providerUrl"));
    QVERIFY(field);
    field->clear();
    QTest::keyClicks(field, url);
    auto *buttons = dialog.findChild<QDialogButtonBox *>();
    QVERIFY(buttons);
    QTest::mouseClick(buttons->button(QDialogButtonBox::Save), Qt::LeftButton);
}

void TestProviderSettingsDialog::refusedUrlIsShownAndNothingSaved_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("why");
    QTest::newRow("plain http elsewhere")
            << QStringLiteral("http://10.0.0.5:12111")
            << QStringLiteral("\"http://10.0.0.5:12111\" is plain http to another machine");
    QTest::newRow("a file") << QStringLiteral("file:///tmp/provider.json") << QStringLiteral("uses file:");
    QTest::newRow("a bare path") << QStringLiteral("/tmp/provider.json") << QStringLiteral("has no scheme");
    QTest::newRow("host and port") << QStringLiteral("127.0.0.1:12111") << QStringLiteral("expected");
    QTest::newRow("a password") << QStringLiteral("https://user:secret@api.example")
                                << QStringLiteral("user name or password");
}

void TestProviderSettingsDialog::refusedUrlIsShownAndNothingSaved()
{
    QFETCH(QString, url);
    QFETCH(QString, why);
    ProviderSettingsDialog dialog(*m_connection);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    typeAndSave(dialog, url);

    QVERIFY(dialog.isVisible());
    QCOMPARE(dialog.result(), int(QDialog::Rejected));
    const QString note = dialog.findChild<QLabel *>(QStringLiteral("providerNote"))->text();
    QVERIFY2(note.startsWith(QStringLiteral("Base URL: ")) && note.contains(why), qPrintable(note));
    QVERIFY2(note.endsWith(QStringLiteral("expected https://…, or http:// to 127.0.0.1, ::1 or localhost")),
             qPrintable(note));
    QVERIFY2(!note.contains(QStringLiteral("secret")), qPrintable(note));
    QCOMPARE(m_connection->baseUrl(), QUrl(savedUrl));
    QCOMPARE(QSettings().value(QStringLiteral("provider/baseUrl")).toString(), savedUrl);
}

void TestProviderSettingsDialog::goodUrlIsSaved()
{
    ProviderSettingsDialog dialog(*m_connection);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    typeAndSave(dialog, QStringLiteral("http://localhost:12112/api"));
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QVERIFY(!dialog.isVisible());
    QCOMPARE(m_connection->baseUrl(), QUrl(QStringLiteral("http://localhost:12112/api")));
    QCOMPARE(QSettings().value(QStringLiteral("provider/baseUrl")).toString(),
             QStringLiteral("http://localhost:12112/api"));
}

void TestProviderSettingsDialog::savedUrlOutsideTheRuleIsNamed()
{
    QSettings().setValue(QStringLiteral("provider/baseUrl"), QStringLiteral("file:///tmp/provider.json"));
    m_connection->load();
    ProviderSettingsDialog dialog(*m_connection);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    const QString note = dialog.findChild<QLabel *>(QStringLiteral("providerNote"))->text();
    QVERIFY2(note.startsWith(QStringLiteral(
                     "The saved provider URL is not used: \"file:///tmp/provider.json\" uses file:")),
             qPrintable(note));
    QVERIFY(dialog.findChild<QLineEdit *>(QStringLiteral("providerUrl"))->text().isEmpty());
}

QTEST_MAIN(TestProviderSettingsDialog)
#include "tst_providersettingsdialog.moc"
