"""The counter: a Variable incremented by an assign op, printed after each run.

Run: python examples/counter.py   (prints 0 1 2 3, one per line)
"""

import graphcore as tf

counter = tf.Variable(0, name="counter")
one = tf.constant(1)
new_value = tf.add(counter, one)
update = tf.assign(counter, new_value)
init = tf.initialize_all_variables()

with tf.Session() as sess:
    sess.run(init)
    print(sess.run(counter))
    for _ in range(3):
        sess.run(update)
        print(sess.run(counter))
