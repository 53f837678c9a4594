// What a --db value names: a file, or a PostgreSQL database by URI or libpq keywords; and what
// is said when a PostgreSQL location is wrong (a password in it above all).

#include "store/storelocation.h"

#include <QTest>

using namespace verity;

class StoreLocationTest : public QObject
{
    Q_OBJECT

private slots:
    void backendIsChosenByTheValue_data()
    {
        QTest::addColumn<QString>("location");
        QTest::addColumn<bool>("postgres");
        QTest::newRow("file") << QStringLiteral("/home/ana/verity.sqlite") << false;
        QTest::newRow("relative file") << QStringLiteral("desk.sqlite") << false;
        QTest::newRow("file with =") << QStringLiteral("a=b.sqlite") << false;
        QTest::newRow("uri") << QStringLiteral("postgresql://db.example/verity") << true;
        QTest::newRow("short scheme") << QStringLiteral("postgres://db.example/verity") << true;
        QTest::newRow("keywords") << QStringLiteral("host=db.example dbname=verity") << true;
        QTest::newRow("keywords, dbname first") << QStringLiteral("dbname=verity") << true;
    }

    void backendIsChosenByTheValue()
    {
        QFETCH(QString, location);
        QFETCH(bool, postgres);
        QCOMPARE(isPostgresLocation(location), postgres);
    }

    void targetsAreRead_data()
    {
        QTest::addColumn<QString>("location");
        QTest::addColumn<QString>("host");
        QTest::addColumn<int>("port");
        QTest::addColumn<QString>("user");
        QTest::addColumn<QString>("database");
        QTest::addColumn<QString>("display");
        QTest::newRow("full uri") << QStringLiteral("postgresql://ana@db.example:6543/support")
                                  << "db.example" << 6543 << "ana"
                                  << "support"
                                  << "postgresql://ana@db.example:6543/support";
        QTest::newRow("host only") << QStringLiteral("postgresql://db.example/support") << "db.example" << 0
                                   << ""
                                   << "support"
                                   << "postgresql://db.example/support";
        QTest::newRow("ipv6") << QStringLiteral("postgresql://[::1]:5433/support") << "::1" << 5433 << ""
                              << "support"
                              << "postgresql://[::1]:5433/support";
        QTest::newRow("socket folder in the query")
                << QStringLiteral("postgresql:///support?host=/run/postgresql&user=ben") << "/run/postgresql"
                << 0 << "ben"
                << "support"
                << "postgresql://ben@/support?host=/run/postgresql";
        QTest::newRow("encoded socket folder")
                << QStringLiteral("postgresql://%2Frun%2Fpostgresql/support") << "/run/postgresql" << 0 << ""
                << "support"
                << "postgresql:///support?host=/run/postgresql";
        QTest::newRow("keywords") << QStringLiteral("host=db.example port=6543 user=ana dbname=support")
                                  << "db.example" << 6543 << "ana"
                                  << "support"
                                  << "postgresql://ana@db.example:6543/support";
        QTest::newRow("quoted keyword")
                << QStringLiteral("dbname='team support' host=db.example") << "db.example" << 0 << ""
                << "team support"
                << "postgresql://db.example/team%20support";
        QTest::newRow("further options") << QStringLiteral("postgresql://db.example/support?sslmode=require")
                                         << "db.example" << 0 << ""
                                         << "support"
                                         << "postgresql://db.example/support?sslmode=require";
    }

    void targetsAreRead()
    {
        QFETCH(QString, location);
        QFETCH(QString, host);
        QFETCH(int, port);
        QFETCH(QString, user);
        QFETCH(QString, database);
        QFETCH(QString, display);
        const Expected<PostgresTarget> target = parsePostgresLocation(location);
        QVERIFY2(target, qPrintable(target ? QString() : target.message()));
        QCOMPARE(target->host, host);
        QCOMPARE(target->port, port);
        QCOMPARE(target->user, user);
        QCOMPARE(target->database, database);
        QCOMPARE(target->display(), display);
        QVERIFY(target->password.isEmpty());
    }

    void wrongLocationsAreNamed_data()
    {
        QTest::addColumn<QString>("location");
        QTest::addColumn<QString>("said");
        QTest::newRow("password in uri")
                << QStringLiteral("postgresql://ana:secret@db.example/support") << "holds a password";
        QTest::newRow("password in keywords")
                << QStringLiteral("host=db.example dbname=x password=secret") << "holds a password";
        QTest::newRow("password in the query")
                << QStringLiteral("postgresql://db.example/x?password=secret") << "holds a password";
        QTest::newRow("no database") << QStringLiteral("postgresql://db.example") << "names no database";
        QTest::newRow("no database in keywords") << QStringLiteral("host=db.example") << "names no database";
        QTest::newRow("bad port") << QStringLiteral("postgresql://db.example:http/x") << "port \"http\"";
        QTest::newRow("port out of range")
                << QStringLiteral("host=h port=70000 dbname=x") << "port \"70000\"";
        QTest::newRow("keyword without value")
                << QStringLiteral("host=h dbname") << "\"dbname\" has no value";
        QTest::newRow("unclosed quote") << QStringLiteral("dbname='x host=h") << "never closes it";
        QTest::newRow("unclosed ipv6") << QStringLiteral("postgresql://[::1/x") << "never closes it";
    }

    void wrongLocationsAreNamed()
    {
        QFETCH(QString, location);
        QFETCH(QString, said);
        const Expected<PostgresTarget> target = parsePostgresLocation(location);
        QVERIFY(!target);
        QVERIFY2(target.message().contains(said), qPrintable(target.message()));
        QVERIFY2(!target.message().contains(QLatin1String("secret")), "the password is repeated back");
    }
};

QTEST_GUILESS_MAIN(StoreLocationTest)
#include "tst_storelocation.moc"
