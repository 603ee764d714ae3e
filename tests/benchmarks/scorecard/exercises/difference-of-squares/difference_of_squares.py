def square_of_sum(number):
    pass


def sum_of_squares(number):
    pass


def difference_of_squares(number):
    pass
