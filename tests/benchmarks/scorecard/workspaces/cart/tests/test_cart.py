from shop.cart import Cart


def test_no_discount():
    c = Cart()
    c.add(10, 2)
    assert c.total() == 20


def test_ten_percent():
    c = Cart()
    c.add(50, 2)
    c.discount = 10
    assert c.total() == 90
