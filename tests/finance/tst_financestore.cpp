#include <QTest>

class FinanceStoreTest : public QObject
{
    Q_OBJECT
};

QTEST_GUILESS_MAIN(FinanceStoreTest)
#include "tst_financestore.moc"
