#include <QTest>

class FinanceReportsTest : public QObject
{
    Q_OBJECT
};

QTEST_GUILESS_MAIN(FinanceReportsTest)
#include "tst_financereports.moc"
