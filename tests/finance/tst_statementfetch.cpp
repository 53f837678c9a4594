#include <QTest>

class StatementFetchTest : public QObject
{
    Q_OBJECT
};

QTEST_GUILESS_MAIN(StatementFetchTest)
#include "tst_statementfetch.moc"
